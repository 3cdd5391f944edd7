"""The session: one live document and the ops that edit it.

Each op that edits runs as one transaction (UndoMode on): when it raises,
or leaves any object invalid after the recompute, the transaction is
aborted and whatever it created is removed, so the document is exactly as
before and the answer says what failed.

Object ids are FreeCAD Names. FreeCAD derives a Name from the name asked
for (Pad, Pad001, ...), and an aborted op frees its names, so the same ops
on the same base give the same ids: a session rebuilt by replaying its
journal finds the objects its client knows.

The Go side gives each opened document a token and sends it with every
call (_document); a process that was restarted has no document and no
token, and answers NO_LIVE_DOCUMENT rather than edit an empty one.
"""
import os

import FreeCAD as App

from . import code, describe, export, features, sketches
from .failures import ToolError, describe as describe_exc, failed, invalid

NO_LIVE_DOCUMENT = "no live document"

# Ops that change the document, each one transaction.
EDITS = {
    "create_body": features.create_body,
    "create_sketch": sketches.create_sketch,
    "pad_sketch": features.pad,
    "pocket_sketch": features.pocket,
    "revolve_sketch": features.revolve,
    "loft_sketches": features.loft,
    "sweep_sketch": features.sweep,
    "shell_solid": features.shell,
    "fillet": features.fillet,
    "chamfer": features.chamfer,
    "linear_pattern": features.linear_pattern,
    "polar_pattern": features.polar_pattern,
    "execute_code": code.execute,
}

# What to try when FreeCAD cannot do an op.
HINTS = {
    "create_sketch": "check that the geometry is valid (no zero-length lines) and the face is planar",
    "pad_sketch": "the sketch must hold closed, non-crossing profiles; through_all needs a solid to reach",
    "pocket_sketch": "the sketch must hold closed profiles that meet the solid; check its plane, offset and direction (reversed)",
    "revolve_sketch": "the profile must lie on one side of the axis and be closed",
    "loft_sketches": "each section must be one closed profile, the sections on distinct planes",
    "sweep_sketch": "the profile must be closed and start where the path does",
    "shell_solid": "try a thinner wall, or other faces to open",
    "fillet": "the radius must fit the faces next to each edge: try a smaller radius or fewer edges",
    "chamfer": "the size must fit the faces next to each edge: try a smaller size or fewer edges",
    "linear_pattern": "each occurrence must meet the solid: try a shorter length or fewer occurrences",
    "polar_pattern": "each occurrence must meet the solid: check the axis, angle and occurrences",
    "execute_code": "the script left an object FreeCAD cannot recompute",
}

# Ops that read the document, or write it elsewhere.
READS = {
    "describe_model": lambda doc, args: describe.model(doc),
    "export_model": export.export_model,
}


class Session:
    def __init__(self):
        self.doc = None
        self.token = None

    def apply(self, op, args):
        args = dict(args)
        token = args.pop("_document", None)
        args.pop("session_id", None)
        if op == "open":
            return self.open(token, args.get("base") or "")
        if self.doc is None or token != self.token:
            raise ToolError("TOOL_UNAVAILABLE", "%s: this FreeCAD process holds no live document for the session; "
                            "reopen it from its last saved state and replay its journal" % NO_LIVE_DOCUMENT)
        if op == "save":
            return self.save(args.get("path") or "")
        if op in READS:
            return READS[op](self.doc, args)
        if op in EDITS:
            return self.transaction(op, EDITS[op], args)
        raise ToolError("METHOD_NOT_FOUND", "the FreeCAD session kernel has no op %r" % op)

    def open(self, token, base):
        if not token:
            raise invalid("open needs a document token (_document)")
        self.close()
        if not base:
            doc = App.newDocument("session")
        else:
            if not os.path.isabs(base):
                raise invalid("base %r must be an absolute path to a .FCStd or STEP file" % base)
            if not os.path.isfile(base):
                raise invalid("base %s does not exist; give the path of the session's saved .FCStd or a STEP file" % base)
            ext = os.path.splitext(base)[1].lower()
            if ext == ".fcstd":
                try:
                    doc = App.openDocument(base)
                except Exception as exc:
                    raise failed("FreeCAD cannot open %s: %s" % (base, describe_exc(exc)))
            elif ext in (".step", ".stp"):
                import Import
                # 0.20's importer crashes headless on a STEP of several
                # parts when it groups them with App::LinkGroup (it sets a
                # view property there is no view for); plain App::Part
                # groups keep the labels.
                App.ParamGet("User parameter:BaseApp/Preferences/Mod/Import").SetBool("UseLinkGroup", False)
                doc = App.newDocument("session")
                try:
                    Import.insert(base, doc.Name)  # keeps the parts' labels
                except Exception as exc:
                    App.closeDocument(doc.Name)
                    raise failed("FreeCAD cannot read the STEP file %s: %s" % (base, describe_exc(exc)))
                doc.recompute()
            else:
                raise invalid("base %s is neither a .FCStd nor a STEP (.step, .stp) file" % base)
        doc.UndoMode = 1
        doc.clearUndos()
        self.doc, self.token = doc, token
        out = describe.model(doc)
        out["process_id"] = os.getpid()
        return out

    def close(self):
        if self.doc is not None:
            try:
                App.closeDocument(self.doc.Name)
            except Exception:
                pass
        self.doc, self.token = None, None

    def save(self, path):
        if not os.path.isabs(path) or not path.lower().endswith(".fcstd"):
            raise invalid("save needs an absolute path ending in .FCStd, not %r" % path)
        folder = os.path.dirname(path)
        if not os.path.isdir(folder):
            raise invalid("the folder %s does not exist; create it first" % folder)
        tmp = os.path.join(folder, ".%s.saving-%d.FCStd" % (os.path.basename(path), os.getpid()))
        try:
            self.doc.saveCopy(tmp)
            os.replace(tmp, path)  # a reader never sees half a file
        except Exception as exc:
            raise failed("saving the document to %s failed: %s" % (path, describe_exc(exc)))
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        return {"path": path, "bytes": os.path.getsize(path)}

    def transaction(self, op, handler, args):
        doc = self.doc
        before = [o.Name for o in doc.Objects]
        tip_before = {o.Name: o.Tip.Name if o.Tip else None for o in doc.Objects if o.TypeId == "PartDesign::Body"}
        doc.openTransaction(op)
        try:
            result = handler(doc, args)
            doc.recompute()
            broken = [o for o in doc.Objects if "Invalid" in o.State or "Error" in o.State]
            if broken:
                raise failed("%s left %s; nothing was changed: %s; %s" % (
                    op, ", ".join("%s (%s)" % (o.Name, o.TypeId) for o in broken),
                    "; ".join("%s: %s" % (o.Name, status(o)) for o in broken),
                    HINTS.get(op, "check the arguments against describe_model")))
        except BaseException as exc:
            self.roll_back(before, tip_before)
            if isinstance(exc, ToolError):
                raise
            if isinstance(exc, Exception):
                raise failed("%s failed and nothing was changed: %s" % (op, describe_exc(exc)))
            raise
        doc.commitTransaction()
        return refreshed(doc, result)

    def roll_back(self, before, tip_before):
        doc = self.doc
        doc.abortTransaction()
        # An abort restores properties; what it could not undo goes now.
        for name in [o.Name for o in doc.Objects if o.Name not in before][::-1]:
            try:
                doc.removeObject(name)
            except Exception:
                pass
        for name, tip in tip_before.items():
            body = doc.getObject(name)
            if body is not None and (body.Tip.Name if body.Tip else None) != tip:
                body.Tip = doc.getObject(tip) if tip else None
        doc.recompute()


def refreshed(doc, result):
    """The answer with its body's tip and volume as recomputed."""
    body = doc.getObject(result.get("body") or "") if isinstance(result, dict) else None
    if body is not None:
        result["tip"] = body.Tip.Name if body.Tip else None
        shape = body.Shape
        result["volume_mm3"] = shape.Volume if not shape.isNull() else 0.0
    return result


def status(obj):
    """Why FreeCAD marks obj invalid, as it says it."""
    try:
        text = obj.getStatusString()
    except Exception:
        text = ""
    return text or ", ".join(obj.State)
