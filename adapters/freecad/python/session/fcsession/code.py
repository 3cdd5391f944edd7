"""execute_code: Python run against the live document (FORGE-512). Its
`result` variable comes back as plain data: vectors, placements, bounding
boxes and document objects converted, anything else as its repr, capped at
20000 serialized characters (result_truncated when cut)."""
import contextlib
import io
import json
import traceback

import FreeCAD as App
import Part
import Sketcher

from .failures import failed

CAP = 20000


def plain(v, depth=0):
    if depth > 20:
        return repr(v)
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and abs(v) != float("inf") else repr(v)
    if isinstance(v, App.Vector):
        return [v.x, v.y, v.z]
    if isinstance(v, App.Placement):
        r = v.Rotation
        return {"position": [v.Base.x, v.Base.y, v.Base.z], "rotation": {
            "axis": [r.Axis.x, r.Axis.y, r.Axis.z], "angle_deg": r.Angle * 180.0 / 3.141592653589793}}
    if isinstance(v, App.BoundBox):
        return {"min": [v.XMin, v.YMin, v.ZMin], "max": [v.XMax, v.YMax, v.ZMax]}
    if isinstance(v, App.DocumentObject):
        return {"obj_id": v.Name, "label": v.Label, "type": v.TypeId}
    if isinstance(v, dict):
        return {str(k): plain(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (list, tuple, set)):
        return [plain(x, depth + 1) for x in v]
    return repr(v)


def capped(text):
    return (text, False) if len(text) <= CAP else (text[:CAP], True)


def execute(doc, args):
    ns = {"App": App, "FreeCAD": App, "Part": Part, "Sketcher": Sketcher, "doc": doc, "result": None}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(args["code"], "<execute_code>", "exec"), ns)
    except Exception as exc:
        tb = traceback.format_exc(limit=-3)
        raise failed("the code raised %s: %s; the document is as it was before it ran\n%s" % (
            type(exc).__name__, exc, tb))
    value = ns.get("result")
    data = plain(value)
    answer = {}
    if isinstance(value, App.DocumentObject):
        answer["obj_id"] = value.Name
    text = json.dumps(data)
    if len(text) > CAP:
        answer["result"], answer["result_truncated"] = text[:CAP], True
    else:
        answer["result"], answer["result_truncated"] = data, False
    answer["stdout"], answer["stdout_truncated"] = capped(out.getvalue())
    return answer
