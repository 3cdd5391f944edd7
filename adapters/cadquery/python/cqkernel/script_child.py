"""The child process that runs one agent script (script_runner.py starts it).

Forked from a fork server that has CadQuery loaded, it confines itself
(isolation.py, then guard.py), runs the script, exports its `result` to
STEP and measures it. It reports one JSON message on its pipe and exits at
once: nothing it sends is unpickled, so a script that reaches the pipe can
forge a report but not run code in the kernel.
"""
import io
import json
import os
import sys
import traceback

import cadquery as cq

from . import formats, guard, isolation, measure
from .failures import ToolError, describe

SCRIPT_NAME = "<script>"
_OUTPUT_LIMIT = 64 * 1024


def main(conn, job):
    try:
        report = _run(conn, job)
    except BaseException as exc:
        traceback.print_exc()
        report = _failure("internal", "the script runner failed before the script finished: %s" % describe(exc))
    try:
        payload = json.dumps(report, allow_nan=False)
    except ValueError:
        payload = json.dumps(_failure("bad_result", "the result measures as a number JSON cannot carry (NaN or "
                                      "infinity); the shape is probably degenerate"))
    conn.send_bytes(payload.encode("utf-8"))
    os._exit(0)


def _run(conn, job):
    out_dir, cad_file = job["out_dir"], job["cad_file"]
    layers = isolation.confine(out_dir, job["memory_mb"], job["cpu_seconds"], keep_fds={conn.fileno()})
    # No script writes bytecode; and the import system's attempt would
    # trip the guard for nothing.
    sys.dont_write_bytecode = True
    guard.install(out_dir, isolation.python_roots())

    output = _Output(_OUTPUT_LIMIT)
    namespace = {"__name__": "__main__", "cq": cq, "cadquery": cq}
    sys.stdout = sys.stderr = output
    try:
        exec(compile(job["script"], SCRIPT_NAME, "exec"), namespace)
    except BaseException as exc:
        return _script_failed(exc, output, job)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    if "result" not in namespace:
        return _failure("no_result", "the script ran but assigned no `result`; end it with the shape to keep, "
                        "e.g. `result = cq.Workplane().box(10, 10, 10)`", output)
    try:
        shape, assembly, kind = _as_shape(namespace["result"])
    except TypeError as exc:
        return _failure("bad_result", str(exc), output)
    try:
        if assembly is not None:
            assembly.export(cad_file, "STEP")
        else:
            formats.save_step(shape, cad_file)
        measures = measure.summary(shape)
    except MemoryError:
        return _failure("memory", "the script's result could not be exported within memory_mb=%d MB; raise "
                        "memory_mb or make the model lighter" % job["memory_mb"], output)
    except ToolError as exc:
        return _failure("export", exc.details, output)
    except Exception as exc:
        return _failure("export", "the script's result could not be exported to STEP: %s" % describe(exc), output)
    return {"ok": True, "data": dict(result_type=kind, output=output.text(), sandbox=layers, **measures)}


def _as_shape(result):
    """(shape, assembly or None, type name) of what the script assigned."""
    if isinstance(result, cq.Assembly):
        return result.toCompound(), result, "Assembly"
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    shapes = []
    for item in items:
        if isinstance(item, cq.Workplane):
            shapes.extend(v for v in item.vals() if isinstance(v, cq.Shape))
        elif isinstance(item, cq.Shape):
            shapes.append(item)
        else:
            raise TypeError("`result` must be a cq.Workplane, a CadQuery shape (Solid, Compound, ...), a list of "
                            "those, or a cq.Assembly; the script assigned a %s" % type(item).__name__)
    if not shapes:
        raise TypeError("`result` holds no shape (a Workplane with nothing on its stack?); assign the solid to keep")
    kind = type(result).__name__
    return (shapes[0] if len(shapes) == 1 else cq.Compound.makeCompound(shapes)), None, kind


def _script_failed(exc, output, job):
    line = _script_line(exc)
    at = " on line %d" % line if line else ""
    refused = _refusal_in(exc)
    if refused is not None:
        return _failure(refused.kind, "%s (line %d of the script)" % (refused.message, line) if line else refused.message,
                        output, line)
    if isinstance(exc, SyntaxError) and exc.filename == SCRIPT_NAME:
        return _failure("script_error", "the script has a syntax error on line %s: %s" % (exc.lineno, exc.msg),
                        output, exc.lineno)
    if isinstance(exc, MemoryError):
        return _failure("memory", "the script ran out of memory%s: it may use memory_mb=%d MB beyond what CadQuery "
                        "itself takes; raise memory_mb or make the model lighter" % (at, job["memory_mb"]), output, line)
    if isinstance(exc, SystemExit):
        return _failure("script_error", "the script called exit (%s)%s before assigning `result`" % (exc.code, at),
                        output, line)
    return _failure("script_error", "the script raised %s%s: %s" % (type(exc).__name__, at, str(exc).strip()),
                    output, line)


def _script_line(exc):
    """The line of the script where exc was raised or passed through last."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == SCRIPT_NAME:
            line = frame.lineno
    return line


def _refusal_in(exc):
    """The guard's refusal behind exc, even if the script wrapped it."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, guard.Refused):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _failure(kind, message, output=None, line=None):
    return {"ok": False, "kind": kind, "message": message, "line": line,
            "output": output.text() if output is not None else ""}


class _Output(io.TextIOBase):
    """What the script prints, kept up to a limit."""

    def __init__(self, limit):
        super().__init__()
        self._parts, self._size, self._limit, self._truncated = [], 0, limit, False

    def writable(self):
        return True

    def write(self, s):
        room = self._limit - self._size
        if room > 0:
            self._parts.append(s[:room])
            self._size += min(len(s), room)
        if len(s) > room:
            self._truncated = True
        return len(s)

    def text(self):
        text = "".join(self._parts)
        return text + "\n[output cut at %d characters]" % self._limit if self._truncated else text
