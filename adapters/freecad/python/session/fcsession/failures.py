"""How the kernel fails: a ToolError carries the protocol's error type and
details that say what went wrong and what to do about it."""


class ToolError(Exception):
    def __init__(self, error_type, details, retryable=False):
        super().__init__(details)
        self.error_type = error_type
        self.details = details
        self.retryable = retryable


def invalid(details):
    """The arguments cannot work on this document (a sketch that does not
    exist, an edge a fillet cannot take): the caller changes them."""
    return ToolError("INVALID_PARAMS", details)


def failed(details):
    """The operation ran and FreeCAD could not do it."""
    return ToolError("TOOL_EXECUTION_ERROR", details)


def describe(exc):
    """An exception as one line: its type and message."""
    text = str(exc).strip() or repr(exc)
    return "%s: %s" % (type(exc).__name__, text)
