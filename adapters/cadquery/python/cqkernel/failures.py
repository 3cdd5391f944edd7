"""How a call fails: a ToolError names one of MetaForge's error types.

The numeric codes are not defined here: the Go side writes them into
kernel.json from protocol/errors.go, the one table of codes.
"""
from contextlib import contextmanager


class ToolError(Exception):
    """A failure reported to the caller as error_type with details."""

    def __init__(self, error_type, details, retryable=False):
        super().__init__(details)
        self.error_type = error_type
        self.details = details
        self.retryable = retryable


def invalid(details):
    return ToolError("INVALID_PARAMS", details)


def refusal(details):
    return ToolError("TOOL_EXECUTION_ERROR", details)


def unavailable(details):
    return ToolError("TOOL_UNAVAILABLE", details)


def timed_out(details):
    return ToolError("TOOL_TIMEOUT", details)


def internal(details):
    return ToolError("INTERNAL_ERROR", details)


def describe(exc):
    """'Type: message', the way a failure is quoted to the caller."""
    message = str(exc).strip() or "(no message)"
    return "%s: %s" % (type(exc).__name__, message)


@contextmanager
def cadquery_step(what):
    """Reports anything CadQuery or OpenCASCADE raises while doing `what`
    as a refusal quoting it, so the caller learns which step failed."""
    try:
        yield
    except ToolError:
        raise
    except MemoryError as exc:
        raise refusal("CadQuery ran out of memory while %s" % what) from exc
    except Exception as exc:
        raise refusal("CadQuery failed while %s: %s" % (what, describe(exc))) from exc
