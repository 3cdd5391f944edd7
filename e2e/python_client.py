"""An MCP client built on the official Python SDK (the `mcp` package), run by
python_client_test.go against metaforge: a second independent client beside
the TypeScript SDK's.

Usage:
    python3 python_client.py stdio BINARY ARGS...   (e.g. metaforge mcp --data-dir DIR)
    python3 python_client.py http URL               (metaforge serve's /mcp)

E2E_BUDGET is the power.check_budget arguments (JSON); over HTTP,
E2E_OPERATOR_TOKEN is sent as the bearer token, which makes the caller the
local operator, whose project.create is not held (README, "Writes wait for a
person"). The script initializes, lists tools, calls power.check_budget,
creates a project, lists resources and resource templates, and reads the
project's twin hierarchy; it prints one JSON line of what it saw, which the
Go test checks. Any failure exits non-zero with the reason on stderr.
"""

import asyncio
import json
import os
import sys
import time
from contextlib import AsyncExitStack

from mcp import ClientSession, Implementation
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def fail(msg):
    print(f"python client FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def structured(res, what):
    """The structured content of a tool result that must not be an error."""
    if res.is_error:
        text = " ".join(getattr(c, "text", "") for c in res.content)
        fail(f"{what} returned isError: {text}")
    if res.structured_content is None:
        fail(f"{what} returned no structuredContent")
    return res.structured_content


async def scenario(session, observed):
    init = await session.initialize()
    observed["serverName"] = init.server_info.name
    observed["protocolVersion"] = init.protocol_version

    tools = await session.list_tools()
    observed["tools"] = sorted(t.name for t in tools.tools)

    budget = json.loads(os.environ["E2E_BUDGET"])
    res = await session.call_tool("power.check_budget", budget)
    observed["budget"] = structured(res, "power.check_budget")
    observed["budgetCallId"] = (res.meta or {}).get("callId", "")

    res = await session.call_tool("project.create", {"name": f"python-client-{time.time_ns()}"})
    project = structured(res, "project.create")
    pid = project.get("project_id")
    if not pid:
        fail(f"project.create returned no project_id: {project}")
    observed["projectId"] = pid

    listed = await session.list_resources()
    observed["resources"] = [r.uri for r in listed.resources]
    templates = await session.list_resource_templates()
    observed["resourceTemplates"] = sorted(t.uri_template for t in templates.resource_templates)

    uri = f"metaforge://twin/hierarchy/{pid}"
    read = await session.read_resource(uri)
    if len(read.contents) != 1:
        fail(f"resources/read {uri} returned {len(read.contents)} contents, want 1")
    c = read.contents[0]
    observed["resource"] = {"uri": str(c.uri), "mimeType": c.mime_type, "body": json.loads(c.text)}


async def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        fail("usage: python3 python_client.py stdio BINARY ARGS... | http URL")
    mode = sys.argv[1]
    observed = {"client": f"metaforge-e2e-python-{mode}"}
    async with AsyncExitStack() as stack:
        if mode == "stdio":
            params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
            streams = await stack.enter_async_context(stdio_client(params))
        else:
            headers = {}
            if os.environ.get("E2E_OPERATOR_TOKEN"):
                headers["Authorization"] = "Bearer " + os.environ["E2E_OPERATOR_TOKEN"]
            http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            streams = await stack.enter_async_context(streamable_http_client(sys.argv[2], http_client=http))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1], client_info=Implementation(name=observed["client"], version="0")))
        await scenario(session, observed)
    print(json.dumps(observed), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
