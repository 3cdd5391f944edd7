"""Runs an agent's script in a child process, never in the kernel itself.

Children are forked from a fork server that has CadQuery loaded, so a
script starts in milliseconds rather than the seconds an import takes; the
fork server is single-threaded, which forking needs and this threaded
kernel is not. A child past its time limit, or whose call was cancelled,
is killed with its whole process group. The child confines itself
(script_child.py); this side only waits and says how it went.
"""
import json
import math
import multiprocessing
import os
import signal
import threading
import time

from . import script_child
from .failures import internal, refusal, timed_out

_POLL_SECONDS = 0.05
_REPORT_LIMIT_BYTES = 8 << 20
# Seconds a child that has reported gets to exit before it is killed.
_EXIT_GRACE_SECONDS = 5
# Seconds kept from the call's own deadline to report a timeout in time.
_DEADLINE_MARGIN_SECONDS = 2
# What the caller sees of a failed script's output.
_OUTPUT_TAIL = 2000

_fork_server_lock = threading.Lock()
_fork_server = None


def _context():
    global _fork_server
    with _fork_server_lock:
        if _fork_server is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["cadquery", "cqkernel.script_child"])
            _fork_server = ctx
        return _fork_server


def run(args, call):
    out_dir, cad_file = args["out_dir"], args["cad_file"]
    job = {"script": args["script"], "out_dir": out_dir, "cad_file": cad_file, "memory_mb": args["memory_mb"],
           # Time on every core OpenCASCADE may use, with a margin: the wall
           # clock is the limit that should strike first.
           "cpu_seconds": int(math.ceil(args["timeout_seconds"] * (os.cpu_count() or 1))) + 5}
    ctx = _context()
    reader, writer = ctx.Pipe(duplex=False)
    child = ctx.Process(target=script_child.main, args=(writer, job), name="cadquery-script", daemon=True)
    child.start()  # the first one waits for the fork server to load CadQuery
    writer.close()

    limit, limit_name = args["timeout_seconds"], "its time limit of %d s (timeout_seconds)" % args["timeout_seconds"]
    remaining = call.remaining()
    if remaining is not None and remaining - _DEADLINE_MARGIN_SECONDS < limit:
        limit = max(remaining - _DEADLINE_MARGIN_SECONDS, 1)
        limit_name = "the call's own deadline, %.0f s away" % limit
    ended = False
    try:
        report = _wait(child, reader, limit, limit_name, call)
        ended = True
    finally:
        _stop(child, _EXIT_GRACE_SECONDS if ended else 0)
        reader.close()

    if report is None:
        raise refusal(_death(child.exitcode, job))
    if not report.get("ok"):
        details = report.get("message") or "the script failed"
        if report.get("output"):
            details += "\nthe script printed (last %d characters):\n%s" % (_OUTPUT_TAIL, report["output"][-_OUTPUT_TAIL:])
        raise internal(details) if report.get("kind") == "internal" else refusal(details)
    # The report comes from the script's process, so what it says was
    # written is checked here rather than believed.
    if not os.path.isfile(cad_file) or os.path.getsize(cad_file) == 0:
        raise refusal("the script's process reported success but wrote no STEP file at %s" % cad_file)
    files = sorted(os.path.join(root, name) for root, _, names in os.walk(out_dir) for name in names)
    return dict(report["data"], cad_file=cad_file, files=files), files


def _wait(child, reader, limit, limit_name, call):
    """The child's report, or None if it ended without one."""
    started = time.monotonic()
    while True:
        if reader.poll(_POLL_SECONDS):
            try:
                return json.loads(reader.recv_bytes(_REPORT_LIMIT_BYTES))
            except (EOFError, OSError, ValueError):
                return None
        if call.cancelled.is_set():
            raise refusal("the call was cancelled, so the script was stopped")
        if time.monotonic() - started > limit:
            raise timed_out("the script ran past %s and was killed; make it faster or give it a longer "
                            "timeout_seconds (at most 600)" % limit_name)


def _stop(child, grace):
    """Gives a child that is ending on its own grace seconds, then kills it
    and its process group."""
    if grace:
        child.join(grace)
    if child.exitcode is None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            child.kill()
    child.join()


def _death(exitcode, job):
    """Why a child ended without reporting, in the caller's terms."""
    if exitcode is not None and exitcode < 0:
        sig = -exitcode
        if sig == signal.SIGXCPU:
            return "the script used up its CPU time (%d s) and was killed" % job["cpu_seconds"]
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "signal %d" % sig
        return ("the script's process died of %s before reporting; if the model is large it may have run out of "
                "memory (memory_mb=%d): raise memory_mb or make the model lighter" % (name, job["memory_mb"]))
    return "the script's process exited with status %s before reporting (did the script call os._exit?)" % exitcode
