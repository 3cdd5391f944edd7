"""The omniverse_usd adapter's tools: one Python process per call.

Usage: run.py <tool> <arguments as JSON>. The Go side (adapters/omniverseusd)
has checked every argument: input files are absolute paths inside the
workspace, an output file is named in the call's own folder. This script
prints one line "METAFORGE_JSON {...}" last: {"data": ...} on success,
{"error": ...} for a file it cannot handle, {"unavailable": ...} when
usd-core (module pxr) does not import.
"""
import json
import sys
import traceback

MARKER = "METAFORGE_JSON "


def emit(obj):
    sys.stdout.write("\n" + MARKER + json.dumps(obj) + "\n")
    sys.stdout.flush()


def version(args):
    from pxr import Usd
    return {"version": ".".join(str(v) for v in Usd.GetVersion())}


def describe_stage(args):
    from usdtools import stage
    return stage.describe(args["file"], args["max_prims"])


def validate_usd_minimum(args):
    from usdtools import checks
    return checks.validate(args)


def convert_glb_to_usd(args):
    from usdtools import glb_to_usd
    return glb_to_usd.convert(args)


TOOLS = {
    "version": version,
    "describe_stage": describe_stage,
    "validate_usd_minimum": validate_usd_minimum,
    "convert_glb_to_usd": convert_glb_to_usd,
}


def main():
    tool, args = sys.argv[1], json.loads(sys.argv[2])
    try:
        import pxr.Usd  # noqa: F401
    except ImportError as e:
        emit({"unavailable": "%s: %s" % (type(e).__name__, e)})
        return
    from usdtools.failures import Refusal
    try:
        emit({"data": TOOLS[tool](args)})
    except Refusal as e:
        emit({"error": str(e)})
    except Exception as e:  # usd-core's own failures: said as they are
        emit({"error": "usd-core failed: %s: %s" % (type(e).__name__, " ".join(str(e).split())),
              "trace": traceback.format_exc()[-2000:]})


if __name__ == "__main__":
    main()
