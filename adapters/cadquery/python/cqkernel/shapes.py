"""The parametric shapes of cadquery.create_parametric. The Go side owns
their parameters (names, defaults, limits: adapters/cadquery/shapes.go);
here each is built from a complete, checked set of them, in millimetres,
and centred so its bounding box is symmetric about the origin."""
import cadquery as cq

from . import measure


def build(kind, p):
    shape = _BUILDERS[kind](p)
    box = measure.bounding_box(shape)
    centre = [(lo + hi) / 2 for lo, hi in zip(box["min"], box["max"])]
    return shape.translate(cq.Vector(-centre[0], -centre[1], -centre[2]))


def _box(p):
    return cq.Solid.makeBox(p["length"], p["width"], p["height"])


def _cylinder(p):
    """Axis along Z; a bore_diameter above 0 makes it a tube."""
    solid = cq.Solid.makeCylinder(p["diameter"] / 2, p["height"])
    if p["bore_diameter"] > 0:
        bore = cq.Solid.makeCylinder(p["bore_diameter"] / 2, p["height"] + 2, cq.Vector(0, 0, -1))
        solid = solid.cut(bore)
    return solid


def _plate(p):
    """Flat in XY, with four corner holes when hole_diameter is above 0."""
    plate = cq.Workplane("XY").box(p["length"], p["width"], p["thickness"])
    if p["corner_radius"] > 0:
        plate = plate.edges("|Z").fillet(p["corner_radius"])
    if p["hole_diameter"] > 0:
        m = p["hole_margin"]
        plate = (plate.faces(">Z").workplane()
                 .rect(p["length"] - 2 * m, p["width"] - 2 * m, forConstruction=True)
                 .vertices().hole(p["hole_diameter"]))
    return plate.val()


def _bracket(p):
    """An L: a base along X and an upright along Z, both `thickness` thick
    and `width` deep in Y; a hole through the middle of each leg when
    hole_diameter is above 0."""
    length, width, height, t = p["length"], p["width"], p["height"], p["thickness"]
    profile = [(0, 0), (length, 0), (length, t), (t, t), (t, height), (0, height)]
    bracket = cq.Workplane("XZ").polyline(profile).close().extrude(-width).val()
    if p["hole_diameter"] > 0:
        r, y = p["hole_diameter"] / 2, width / 2
        base_hole = cq.Solid.makeCylinder(r, t + 2, cq.Vector(t + (length - t) / 2, y, -1), cq.Vector(0, 0, 1))
        upright_hole = cq.Solid.makeCylinder(r, t + 2, cq.Vector(-1, y, t + (height - t) / 2), cq.Vector(1, 0, 0))
        bracket = bracket.cut(base_hole).cut(upright_hole)
    return bracket


def _enclosure(p):
    """An open-top box: walls and floor wall_thickness thick."""
    length, width, height, t = p["length"], p["width"], p["height"], p["wall_thickness"]
    outer = cq.Solid.makeBox(length, width, height)
    cavity = cq.Solid.makeBox(length - 2 * t, width - 2 * t, height, cq.Vector(t, t, t))
    return outer.cut(cavity)


_BUILDERS = {"box": _box, "cylinder": _cylinder, "plate": _plate, "bracket": _bracket, "enclosure": _enclosure}
