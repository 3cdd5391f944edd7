"""The adapter protocol, kernel side: JSON-RPC 2.0 over stdin and stdout,
one message per line (adapters/stdio_server.go is the Go reference).

FreeCAD is not thread-safe, and the document is one: every tool call runs
on the main thread, in order, while a reader thread answers tool/list and
health/check at once. A cancellation cannot interrupt FreeCAD; the Go side
discards a process whose call outran its deadline.
"""
import json
import os
import queue
import sys
import threading
import time
import traceback

from .failures import ToolError, describe

KERNEL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Server:
    def __init__(self, config, out):
        self.config = config
        self.out = out
        self.out_lock = threading.Lock()
        self.started = time.time()
        self.calls = queue.Queue()
        self.version = None
        self.failure = None
        self.ops = None

    def load(self):
        """Imports FreeCAD and the ops; a failure is kept and answered."""
        try:
            import FreeCAD  # noqa: F401
            self.version = ".".join(FreeCAD.Version()[:3])
        except Exception as exc:
            self.failure = ToolError("TOOL_UNAVAILABLE", "FreeCAD does not import: %s" % describe(exc))
            return
        try:
            from . import ops
            self.ops = ops.Session()
        except Exception as exc:
            traceback.print_exc()
            self.failure = ToolError("INTERNAL_ERROR", "the FreeCAD session kernel does not load: %s" % describe(exc))

    def read(self, lines):
        for line in lines:
            if line.strip():
                self.handle(line)
        self.calls.put(None)

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
            return  # notifications: a cancellation cannot stop FreeCAD
        rid = msg["id"]
        if method == "tool/list":
            self.send_result(rid, {"tools": self.config["tools"]})
        elif method == "health/check":
            if self.failure is not None:
                self.send_error(rid, self.failure.error_type, self.failure.details)
            else:
                self.send_result(rid, {"adapter_id": self.config["adapter_id"], "status": "healthy",
                                       "version": self.version, "tools_available": len(self.config["tools"]),
                                       "uptime_seconds": time.time() - self.started})
        elif method == "tool/call":
            self.calls.put((rid, params))
        else:
            self.send_error(rid, "METHOD_NOT_FOUND", "unknown method %r" % method)

    def serve(self):
        """Runs the calls in order on this (the main) thread."""
        while True:
            item = self.calls.get()
            if item is None:
                return
            rid, params = item
            self.run_call(rid, params)

    def run_call(self, rid, params):
        started = time.monotonic()
        tool_id = params.get("tool_id") or ""

        def ms():
            return (time.monotonic() - started) * 1000

        try:
            if self.failure is not None:
                raise self.failure
            data = self.ops.apply(tool_id, params.get("arguments") or {})
            self.send_result(rid, {"tool_id": tool_id, "status": "success", "data": data,
                                   "duration_ms": ms(), "output_files": []})
        except ToolError as exc:
            self.send_error(rid, exc.error_type, exc.details, tool_id, exc.retryable, ms())
        except Exception as exc:
            traceback.print_exc()
            self.send_error(rid, "INTERNAL_ERROR", "the FreeCAD session kernel failed in %s: %s" % (tool_id, describe(exc)),
                            tool_id, False, ms())

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
    # The protocol keeps the real stdout to itself; FreeCAD's console and a
    # stray print land on stderr, which the Go side logs.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    os.chdir(KERNEL_DIR)
    with open(os.path.join(KERNEL_DIR, "kernel.json"), encoding="utf-8") as f:
        config = json.load(f)
    server = Server(config, out)
    server.load()
    threading.Thread(target=server.read, args=(sys.stdin.buffer,), name="read-stdin", daemon=True).start()
    server.serve()
