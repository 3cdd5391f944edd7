"""create_sketch: a sketch in a body, on a base plane (with an offset) or a
planar face of a feature, holding the geometry given."""
import math

import FreeCAD as App
import Part
import Sketcher

from .bodies import answer, body_for, get, origin_feature, vec
from .failures import invalid

PLANES = {"XY": "XY_Plane", "XZ": "XZ_Plane", "YZ": "YZ_Plane"}


def create_sketch(doc, args):
    body = body_for(doc, args.get("body") or "", create=True)
    sk = body.newObject("Sketcher::SketchObject", "Sketch")
    if args.get("label"):
        sk.Label = args["label"]
    face = args.get("face")
    if face:
        feature = get(doc, face.get("feature") or "", "feature")
        name = face.get("face") or ""
        try:
            sub = feature.Shape.getElement(name)
        except Exception:
            raise invalid("%s has no face %r; its faces are Face1..Face%d" % (feature.Name, name, len(feature.Shape.Faces)))
        if not isinstance(sub.Surface, Part.Plane):
            raise invalid("%s.%s is not planar (a %s); a sketch needs a planar face" % (
                feature.Name, name, type(sub.Surface).__name__))
        sk.Support = (feature, [name])
    else:
        plane = args.get("plane") or "XY"
        sk.Support = (origin_feature(body, PLANES[plane]), [""])
    sk.MapMode = "FlatFace"
    offset = float(args.get("offset") or 0.0)
    if offset:
        sk.AttachmentOffset = App.Placement(vec(0, 0, offset), App.Rotation())
    for i, g in enumerate(args.get("geometry") or []):
        add(sk, g, i)
    return answer(doc, sk, body)


def add(sk, g, i):
    kind = g.get("type")
    where = "geometry[%d] (%s)" % (i, kind)
    if kind == "rectangle":
        x, y, w, h = g["x"], g["y"], g["width"], g["height"]
        polyline(sk, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)], True, rect=True)
    elif kind == "circle":
        sk.addGeometry(Part.Circle(vec(g["cx"], g["cy"]), vec(0, 0, 1), float(g["r"])))
    elif kind == "polygon":
        pts = g.get("points") or []
        if len(pts) < 2:
            raise invalid("%s needs at least 2 points" % where)
        polyline(sk, pts, bool(g.get("closed")))
    elif kind == "line":
        sk.addGeometry(Part.LineSegment(vec(g["x1"], g["y1"]), vec(g["x2"], g["y2"])))
    elif kind == "arc":
        circle = Part.Circle(vec(g["cx"], g["cy"]), vec(0, 0, 1), float(g["r"]))
        sk.addGeometry(Part.ArcOfCircle(circle, math.radians(g["start_angle"]), math.radians(g["end_angle"])))
    else:
        raise invalid("%s: unknown geometry type; use rectangle, circle, polygon, line or arc" % where)


def polyline(sk, pts, closed, rect=False):
    n = len(pts)
    count = n if closed else n - 1
    first = None
    for k in range(count):
        a, b = pts[k], pts[(k + 1) % n]
        idx = sk.addGeometry(Part.LineSegment(vec(a[0], a[1]), vec(b[0], b[1])))
        if first is None:
            first = idx
    for k in range(count - 1):
        sk.addConstraint(Sketcher.Constraint("Coincident", first + k, 2, first + k + 1, 1))
    if closed:
        sk.addConstraint(Sketcher.Constraint("Coincident", first + count - 1, 2, first, 1))
    if rect:
        for k in range(4):
            sk.addConstraint(Sketcher.Constraint("Horizontal" if k % 2 == 0 else "Vertical", first + k))
