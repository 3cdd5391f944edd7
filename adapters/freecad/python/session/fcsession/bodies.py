"""Finding what an op names in the document: bodies, features, sketches."""
import FreeCAD as App

from .failures import invalid


def bodies(doc):
    return [o for o in doc.Objects if o.TypeId == "PartDesign::Body"]


def get(doc, name, what="object"):
    obj = doc.getObject(name) if name else None
    if obj is None:
        raise invalid("there is no %s %r in the document; describe_model lists the obj_ids" % (what, name))
    return obj


def body_for(doc, name, create=False):
    """The body named, else the only one; create makes one when there is
    none (a sketch's first body)."""
    if name:
        obj = get(doc, name, "body")
        if obj.TypeId != "PartDesign::Body":
            raise invalid("%s is a %s, not a PartDesign::Body" % (name, obj.TypeId))
        return obj
    found = bodies(doc)
    if len(found) == 1:
        return found[0]
    if not found:
        if create:
            return doc.addObject("PartDesign::Body", "Body")
        raise invalid("the document has no body; create_sketch makes one, or call create_body")
    raise invalid("the document has several bodies (%s); name the one meant in body" % ", ".join(b.Name for b in found))


def body_of(doc, obj):
    for b in bodies(doc):
        if b.hasObject(obj):
            return b
    raise invalid("%s is not in a PartDesign body; the session's features live in bodies" % obj.Name)


def feature_or_tip(doc, name, body=None):
    """The feature named, else the tip of the only body: the solid an op on
    edges or faces works on."""
    if name:
        return get(doc, name, "feature")
    b = body or body_for(doc, "")
    if b.Tip is None:
        raise invalid("body %s has no solid yet; pad a sketch first" % b.Name)
    return b.Tip


def sketch(doc, name):
    obj = get(doc, name, "sketch")
    if obj.TypeId != "Sketcher::SketchObject":
        raise invalid("%s is a %s, not a sketch; create_sketch returns a sketch's obj_id" % (name, obj.TypeId))
    return obj


def origin_feature(body, role):
    """The body's own axis or plane: X_Axis, XY_Plane, ..."""
    for f in body.Origin.OriginFeatures:
        if f.Role == role:
            return f
    raise invalid("body %s has no origin feature %s" % (body.Name, role))


def answer(doc, obj, body=None):
    """What an edit returns: the new object's id, its body and the body's
    solid as it now is."""
    out = {"obj_id": obj.Name, "label": obj.Label, "type": obj.TypeId}
    if body is not None:
        out["body"] = body.Name
        out["tip"] = body.Tip.Name if body.Tip else None
        shape = body.Shape
        out["volume_mm3"] = shape.Volume if not shape.isNull() else 0.0
    return out


def vec(x, y, z=0.0):
    return App.Vector(float(x), float(y), float(z))
