"""Entry point of MetaForge's CadQuery kernel: `python run_kernel.py`.

It lives beside the cqkernel package and nothing else, so the folder Python
puts first on sys.path holds no module that could shadow a real one. The
script runner's children import this file again (multiprocessing does), so
it does nothing unless run as the program.
"""
if __name__ == "__main__":
    from cqkernel.server import main

    main()
