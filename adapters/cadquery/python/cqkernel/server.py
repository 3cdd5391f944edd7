"""MetaForge's adapter protocol, kernel side: JSON-RPC 2.0 over stdin and
stdout, one message per line (adapters/stdio_server.go is the Go reference).

Each tool call runs in a thread of its own, so a health check or a
cancellation is answered while a call works.
"""
import importlib.metadata
import importlib.util
import json
import os
import sys
import threading
import time
import traceback

from .failures import ToolError, describe, internal, unavailable

KERNEL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Call:
    """One tool call in flight: its deadline, and whether the caller gave up."""

    def __init__(self, timeout_seconds):
        self.deadline = time.monotonic() + timeout_seconds if timeout_seconds else None
        self.cancelled = threading.Event()

    def remaining(self):
        """Seconds left before the caller's deadline; None without one."""
        return None if self.deadline is None else self.deadline - time.monotonic()


class Loader:
    """Imports CadQuery and the tools built on it in the background: the
    import takes seconds, and the protocol handshake must not wait for it."""

    def __init__(self):
        self._done = threading.Event()
        self._tools = None
        self.failure = None
        threading.Thread(target=self._load, name="import-cadquery", daemon=True).start()

    def _load(self):
        try:
            import cadquery  # noqa: F401
        except Exception as exc:
            # The bare reason: the Go side words it (adapters/cadquery/health.go).
            self.failure = unavailable(describe(exc))
        else:
            try:
                from . import tools
                self._tools = tools
            except Exception as exc:
                traceback.print_exc()
                self.failure = internal("the CadQuery kernel does not load: %s" % describe(exc))
        self._done.set()

    def tools(self):
        """The tools module, once loaded; raises why it could not be."""
        self._done.wait()
        if self.failure is not None:
            raise self.failure
        return self._tools

    def version(self):
        """CadQuery's version, without waiting for the import: an installed
        CadQuery that is still loading counts as there. Raises why not."""
        if self.failure is not None:
            raise self.failure
        if importlib.util.find_spec("cadquery") is None:
            raise unavailable("ModuleNotFoundError: No module named 'cadquery'")
        try:
            return importlib.metadata.version("cadquery")
        except importlib.metadata.PackageNotFoundError:
            return "(version unknown)"


class Server:
    """Answers tool/list, health/check, tool/call and
    notifications/cancelled; config is kernel.json, out the protocol's
    private copy of stdout."""

    def __init__(self, config, out):
        self.config = config
        self.out = out
        self.out_lock = threading.Lock()
        self.calls = {}
        self.calls_lock = threading.Lock()
        self.started = time.time()
        self.loader = Loader()

    def serve(self, lines):
        for line in lines:
            if line.strip():
                self.handle(line)
        # The Go side closed stdin: stop what still runs (a script's child
        # process above all) and return, so the interpreter exits and
        # multiprocessing cleans up after the fork server. A call stuck in
        # OpenCASCADE may hold the exit up; the Go side kills the process
        # after a grace period.
        with self.calls_lock:
            for call in self.calls.values():
                call.cancelled.set()
        time.sleep(0.2)

    def handle(self, line):
        try:
            msg = json.loads(line)
        except ValueError as exc:
            self.send_error(None, "PARSE_ERROR", "the line is not valid JSON: %s" % exc)
            return
        if not isinstance(msg, dict):
            self.send_error(None, "INVALID_REQUEST", "a request must be a JSON object")
            return
        method, params = msg.get("method"), msg.get("params") or {}
        if "id" not in msg:
            if method == "notifications/cancelled":
                self.cancel(params.get("requestId"))
            return
        rid = msg["id"]
        if method == "tool/list":
            self.send_result(rid, {"tools": self.config["tools"]})
        elif method == "health/check":
            try:
                self.send_result(rid, self.health())
            except ToolError as exc:
                self.send_error(rid, exc.error_type, exc.details)
        elif method == "tool/call":
            self.start_call(rid, params)
        else:
            self.send_error(rid, "METHOD_NOT_FOUND", "unknown method %r" % method)

    def health(self):
        """Healthy with CadQuery's version as `version`."""
        return {"adapter_id": self.config["adapter_id"], "status": "healthy", "version": self.loader.version(),
                "tools_available": len(self.config["tools"]), "uptime_seconds": time.time() - self.started}

    def start_call(self, rid, params):
        call = Call(params.get("timeout_seconds"))
        key = json.dumps(rid)
        with self.calls_lock:
            self.calls[key] = call
        threading.Thread(target=self.run_call, args=(rid, key, params, call), daemon=True,
                         name="call-%s" % key).start()

    def cancel(self, rid):
        with self.calls_lock:
            call = self.calls.get(json.dumps(rid))
        if call is not None:
            call.cancelled.set()

    def run_call(self, rid, key, params, call):
        started = time.monotonic()
        tool_id = params.get("tool_id") or ""

        def ms():
            return (time.monotonic() - started) * 1000

        try:
            handler = self.loader.tools().HANDLERS.get(tool_id)
            if handler is None:
                raise ToolError("METHOD_NOT_FOUND", "the CadQuery kernel has no tool %r" % tool_id)
            data, files = handler(params.get("arguments") or {}, call)
            self.send_result(rid, {"tool_id": tool_id, "status": "success", "data": data,
                                   "duration_ms": ms(), "output_files": files})
        except ToolError as exc:
            self.send_error(rid, exc.error_type, exc.details, tool_id, exc.retryable, ms())
        except Exception as exc:
            traceback.print_exc()
            self.send_error(rid, "INTERNAL_ERROR", "the CadQuery kernel failed in %s: %s" % (tool_id, describe(exc)),
                            tool_id, False, ms())
        finally:
            with self.calls_lock:
                self.calls.pop(key, None)

    def send_result(self, rid, result):
        try:
            line = json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}, allow_nan=False)
        except ValueError as exc:
            self.send_error(rid, "INTERNAL_ERROR", "the result holds a number JSON cannot carry (%s): "
                            "the geometry is probably degenerate" % exc)
            return
        self.write(line)

    def send_error(self, rid, error_type, details, tool_id="", retryable=False, duration_ms=0.0):
        known = self.config["error_codes"].get(error_type) or self.config["error_codes"]["INTERNAL_ERROR"]
        self.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {
            "code": known["code"], "message": known["message"],
            "data": {"error_type": error_type, "tool_id": tool_id, "details": details,
                     "duration_ms": duration_ms, "retryable": retryable}}}))

    def write(self, line):
        with self.out_lock:
            self.out.write(line.encode("utf-8") + b"\n")
            self.out.flush()


def main():
    # The protocol keeps the real stdout to itself; whatever else writes to
    # stdout (OpenCASCADE's messages, a stray print) lands on stderr, which
    # the Go side logs, instead of corrupting the message stream.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # The script runner's fork server starts with this folder on its path.
    os.chdir(KERNEL_DIR)
    with open(os.path.join(KERNEL_DIR, "kernel.json"), encoding="utf-8") as f:
        config = json.load(f)
    Server(config, out).serve(sys.stdin.buffer)
