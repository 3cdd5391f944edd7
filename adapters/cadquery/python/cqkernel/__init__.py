"""MetaForge's CadQuery kernel: the geometry behind the Go adapter
adapters/cadquery, spoken to over MetaForge's stdio protocol.

The Go side checks every argument, resolves every file and names every
output before a call reaches this package; here the geometry is done.
"""
