"""Regenerates the STEP fixtures of the gmsh adapter's tests.

Run from this folder with CadQuery installed: python3 make_fixtures.py
The tests read the .step files only; they never need CadQuery.
"""

import cadquery as cq

# box.step: 100 x 10 x 10 mm, x 0..100, y 0..10, z 0..10.
box = cq.Workplane("XY").box(100, 10, 10, centered=False)
cq.exporters.export(box, "box.step")

# holed_plate.step: 40 x 40 x 10 mm plate, x/y 0..40, z 0..10, with a
# 10 mm through hole along z centred at (20, 20): the cylindrical face has
# area pi * 10 * 10.
plate = (
    cq.Workplane("XY")
    .box(40, 40, 10, centered=False)
    .faces(">Z")
    .workplane()
    .center(20, 20)
    .hole(10)
)
cq.exporters.export(plate, "holed_plate.step")

# offset_cube.step: a 10 mm cube away from the origin, x 50..60,
# y 20..30, z -5..5.
cube = cq.Workplane("XY").box(10, 10, 10, centered=False).translate((50, 20, -5))
cq.exporters.export(cube, "offset_cube.step")
