"""The one exception the tools raise for a file they cannot handle."""


class Refusal(Exception):
    """A file or request the tool cannot handle; the message says what to
    fix. The Go side answers it as a tool execution error."""
