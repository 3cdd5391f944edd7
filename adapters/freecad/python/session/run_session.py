"""Entry point of MetaForge's FreeCAD session kernel: `python run_session.py`.

One process holds one live FreeCAD document for one editing session. It
lives beside the fcsession package and nothing else, so the folder Python
puts first on sys.path holds no module that could shadow a real one.
"""
if __name__ == "__main__":
    from fcsession.lifetime import die_with_parent

    # First of all: a FreeCAD process must never outlive the worker that
    # holds its document.
    die_with_parent()

    from fcsession.server import main

    main()
