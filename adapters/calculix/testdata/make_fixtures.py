"""Regenerates the STEP fixtures of the calculix adapter's tests.

Run from this folder with CadQuery installed: python3 make_fixtures.py
The tests read the .step files only; they never need CadQuery.
"""

import cadquery as cq

# beam.step: the cantilever of issue 20, 200 x 20 x 5 mm, x 0..200 (length),
# y 0..20 (width b), z 0..5 (depth h, the load direction).
beam = cq.Workplane("XY").box(200, 20, 5, centered=False)
cq.exporters.export(beam, "beam.step")

# holed_strip.step: a strip in tension with a central hole, 80 x 20 x 1 mm
# (x 0..80, width W = 20 along y, thickness 1 along z), hole d = 4 at
# (40, 10): d/W = 0.2, 40 mm (2 W) from each end.
strip = (
    cq.Workplane("XY")
    .box(80, 20, 1, centered=False)
    .faces(">Z")
    .workplane()
    .center(40, 10)
    .hole(4)
)
cq.exporters.export(strip, "holed_strip.step")

# cube.step: a 20 mm cube, x/y/z 0..20: a compact part, whose sparse
# factor fills in more per node than a slender one's.
cube = cq.Workplane("XY").box(20, 20, 20, centered=False)
cq.exporters.export(cube, "cube.step")
