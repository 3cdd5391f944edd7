"""describe_model: every object of the document, measured in the global
frame (its own placement and its parents': a Body's, an App::Part's)."""
import FreeCAD as App

# A body's origin (its axes and base planes) is scaffolding, not model.
SKIPPED = {"App::Origin", "App::Line", "App::Plane"}


def global_shape(obj):
    """obj's shape placed in the global frame, or None when it has none."""
    shape = getattr(obj, "Shape", None)
    if shape is None or shape.isNull():
        return None
    shape = shape.copy()
    try:
        own = obj.Placement
        parents = obj.getGlobalPlacement().multiply(own.inverse())
    except Exception:
        return shape
    shape.Placement = parents.multiply(shape.Placement)
    return shape


def bbox(bb):
    return {"min": [bb.XMin, bb.YMin, bb.ZMin], "max": [bb.XMax, bb.YMax, bb.ZMax],
            "size": [bb.XLength, bb.YLength, bb.ZLength]}


def entry(obj):
    out = {"obj_id": obj.Name, "label": obj.Label, "type": obj.TypeId}
    shape = global_shape(obj) if obj.TypeId != "PartDesign::Body" or obj.Tip is not None else None
    if shape is not None:
        out["volume_mm3"] = shape.Volume
        out["area_mm2"] = shape.Area
        out["bounding_box"] = bbox(shape.BoundBox) if shape.BoundBox.isValid() else None
    if obj.TypeId == "PartDesign::Body":
        out["tip"] = obj.Tip.Name if obj.Tip else None
        out["features"] = [o.Name for o in obj.Group if o.TypeId not in SKIPPED]
    state = [s for s in obj.State if s in ("Invalid", "Error", "Touched")]
    if state:
        out["state"] = state
    return out


def model(doc):
    objects = [entry(o) for o in doc.Objects if o.TypeId not in SKIPPED]
    return {"objects": objects, "bodies": [o["obj_id"] for o in objects if o["type"] == "PartDesign::Body"]}
