"""Edges by name or by selector, on the solid a dress-up feature changes.

"|X", "|Y", "|Z": straight edges parallel to that axis, less seam edges
(the line where a cylinder's face closes on itself: a hole has one, and
it is no edge a fillet can round). ">Z" / "<Z" (any axis): edges lying at
the maximum / minimum of the solid along it. "all": every edge but seams.
"""
from .failures import invalid

AXES = {"X": (1, 0, 0), "Y": (0, 1, 0), "Z": (0, 0, 1)}
TOL = 1e-6


def edges(shape, names, selector, owner):
    if names:
        count = len(shape.Edges)
        for n in names:
            if not n.startswith("Edge") or not n[4:].isdigit() or not 1 <= int(n[4:]) <= count:
                raise invalid("%s has no edge %r; its edges are Edge1..Edge%d" % (owner, n, count))
        return list(names)
    picked = select(shape, selector)
    if not picked:
        raise invalid("selector %r picks no edge of %s; describe_model shows the solid, "
                      "or name the edges (Edge1..Edge%d)" % (selector, owner, len(shape.Edges)))
    return picked


def select(shape, selector):
    out = []
    for i, e in enumerate(shape.Edges, start=1):
        if is_seam(shape, e):
            continue
        if selector == "all" or matches(shape, e, selector):
            out.append("Edge%d" % i)
    return out


def is_seam(shape, edge):
    faces = shape.ancestorsOfType(edge, __import__("Part").Face)
    return any(edge.isSeam(f) for f in faces)


def matches(shape, e, selector):
    kind, axis = selector[0], selector[1:]
    if axis not in AXES:
        raise invalid("selector %r: the axis must be X, Y or Z" % selector)
    if kind == "|":
        if type(e.Curve).__name__ not in ("Line", "LineSegment"):
            return False
        d = e.Vertexes[-1].Point - e.Vertexes[0].Point
        if d.Length < TOL:
            return False
        d.normalize()
        a = AXES[axis]
        return abs(abs(d.x * a[0] + d.y * a[1] + d.z * a[2]) - 1) < 1e-9
    if kind in "<>":
        bb, eb = shape.BoundBox, e.BoundBox
        k = "XYZ".index(axis)
        lo, hi = (bb.XMin, bb.YMin, bb.ZMin)[k], (bb.XMax, bb.YMax, bb.ZMax)[k]
        emin, emax = (eb.XMin, eb.YMin, eb.ZMin)[k], (eb.XMax, eb.YMax, eb.ZMax)[k]
        at = hi if kind == ">" else lo
        return abs(emin - at) < 1e-6 and abs(emax - at) < 1e-6
    raise invalid("unknown selector %r; use |X, |Y, |Z, >X, <X, >Y, <Y, >Z, <Z or all" % selector)
