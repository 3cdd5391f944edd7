"""The omniverse_usd adapter's Python: USD stages read and written with
Pixar's usd-core (module pxr), one process per call (run.py)."""
