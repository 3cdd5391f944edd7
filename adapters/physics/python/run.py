"""The physics adapter's tools: one PyBullet process per call.

Usage: run.py <tool> <arguments as JSON>. The Go side (adapters/physics)
has checked every argument: the URDF is an absolute path inside the
workspace whose meshes were found there, joint names name movable joints,
values are within their limits, the run is within its caps. This script
simulates and prints one line "METAFORGE_JSON {...}" last: {"data": ...} on
success, {"error": ...} for a model PyBullet cannot load or run,
{"unavailable": ...} when PyBullet does not import. PyBullet's own chatter
on stdout ("pybullet build time: ...") comes before it and is skipped.
"""
import json
import sys
import traceback

MARKER = "METAFORGE_JSON "


def emit(obj):
    sys.stdout.write("\n" + MARKER + json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    tool, args = sys.argv[1], json.loads(sys.argv[2])
    try:
        import pybullet  # noqa: F401  (the check that it imports)
        import pybullet_data  # noqa: F401
    except ImportError as e:
        emit({"unavailable": "%s: %s" % (type(e).__name__, e)})
        return
    from mfphysics import tools
    from mfphysics.world import Refusal
    try:
        emit({"data": tools.HANDLERS[tool](args)})
    except Refusal as e:
        emit({"error": str(e)})
    except Exception as e:  # PyBullet's own failures: said as they are
        emit({"error": "PyBullet failed: %s: %s" % (type(e).__name__, e), "trace": traceback.format_exc()[-2000:]})


if __name__ == "__main__":
    main()
