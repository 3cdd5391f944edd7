#!/usr/bin/env python3
"""Test fixture: a MetaForge adapter in Python (standard library only).

It speaks the stdio protocol of adapters.ServeStdio (JSON-RPC 2.0, one message
per line) to show an adapter can be written in any language. One tool,
pyecho.echo, returns its "message"; without one it answers INVALID_PARAMS.
"""
import json, sys, time

STARTED = time.time()
TOOL = {"tool_id": "pyecho.echo", "adapter_id": "pyecho", "name": "Echo (test fixture)",
        "description": "Test fixture: returns its message.", "capability": "test_fixture",
        "input_schema": {"type": "object", "properties": {"message": {"type": "string"}},
                         "required": ["message"]}}


def error(code, error_type, details, tool_id=""):
    return {"code": code, "message": "Tool execution failed" if code == -32001 else error_type,
            "data": {"error_type": error_type, "tool_id": tool_id, "details": details, "duration_ms": 0}}


def handle(method, params):
    """Returns (result, error) for one request."""
    if method == "tool/list":
        return {"tools": [TOOL]}, None
    if method == "health/check":
        return {"adapter_id": "pyecho", "status": "healthy", "version": "0.1.0-py",
                "tools_available": 1, "uptime_seconds": time.time() - STARTED}, None
    if method != "tool/call":
        return None, error(-32601, "METHOD_NOT_FOUND", "unknown method %r" % method)
    if params.get("tool_id") != "pyecho.echo":
        return None, error(-32601, "METHOD_NOT_FOUND", "no tool %r; try pyecho.echo" % params.get("tool_id"))
    message = (params.get("arguments") or {}).get("message")
    if not isinstance(message, str):
        return None, error(-32602, "INVALID_PARAMS", "pass a string 'message' to echo", "pyecho.echo")
    return {"tool_id": "pyecho.echo", "status": "success", "data": {"message": message},
            "duration_ms": 0, "output_files": []}, None


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        req = json.loads(line)
    except ValueError as e:
        reply = {"jsonrpc": "2.0", "id": None, "error": error(-32700, "PARSE_ERROR", str(e))}
    else:
        if "id" not in req:
            continue  # a notification: nothing to answer
        result, err = handle(req.get("method"), req.get("params") or {})
        reply = {"jsonrpc": "2.0", "id": req["id"]}
        reply.update({"error": err} if err else {"result": result})
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
