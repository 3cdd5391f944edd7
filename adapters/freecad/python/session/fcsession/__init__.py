"""MetaForge's FreeCAD session kernel: one live document, edited op by op
over the adapter stdio protocol (adapters/stdio_server.go)."""
