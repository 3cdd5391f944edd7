"""export_model: the session's solids as one STEP file.

Placements are baked into the geometry (FORGE-505): Import.export would
store a placement as an assembly transform that gmsh and Part.read drop,
so each solid is copied into a scratch document already placed, under its
own Label. Colours are then written into the file's bytes as STYLED_ITEM /
COLOUR_RGB entities (FORGE-517): headless FreeCAD has no ViewObject and
writes none. The volume, area and bounding box returned are measured from
the file written.
"""
import json
import os
import re

import FreeCAD as App
import Import
import Part

from .bodies import bodies, get
from .describe import bbox, global_shape
from .failures import ToolError, describe as describe_exc, failed, invalid


# Containers: a solid in one is still a part of its own.
GROUPS = {"App::Part", "App::DocumentObjectGroup"}


def default_objects(doc):
    """Every body with a solid, and every solid outside a body (an
    imported STEP's parts)."""
    out = [b for b in bodies(doc) if b.Tip is not None]
    inside = set()
    for b in bodies(doc):
        inside.update(o.Name for o in b.Group)
    for o in doc.Objects:
        if o.Name in inside or o.TypeId == "PartDesign::Body" or not o.isDerivedFrom("Part::Feature"):
            continue
        if o.TypeId.startswith("Sketcher::") or o.TypeId.startswith("PartDesign::"):
            continue
        used = [u for u in o.InList if u.TypeId not in GROUPS]  # a boolean's input is in its result
        if not o.Shape.isNull() and o.Shape.Solids and not used:
            out.append(o)
    return out


def rgb(c):
    c = [float(x) for x in c]
    if any(x > 1 for x in c):
        c = [x / 255.0 for x in c]
    return c


def imported_colour(obj):
    """The [r, g, b] freecad.import_step stored on obj, or None."""
    raw = getattr(obj, "MetaforgeColor", "") if "MetaforgeColor" in obj.PropertiesList else ""
    try:
        c = json.loads(raw) if raw else None
    except ValueError:
        return None
    return rgb(c) if isinstance(c, list) and len(c) == 3 else None


def export_model(doc, args):
    path = args.get("path") or ""
    if not os.path.isabs(path) or os.path.splitext(path)[1].lower() not in (".step", ".stp"):
        raise invalid("export_model needs an absolute path ending in .step or .stp, not %r" % path)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise invalid("the folder %s does not exist; create it first" % folder)
    objs = [get(doc, n) for n in args.get("objects") or []] or default_objects(doc)
    if not objs:
        raise invalid("the document has no solid to export; pad a sketch first")
    # The colour a part was imported with (freecad.import_step records it
    # on the object) is the lowest priority: color, then part_colors win.
    colours = {o.Label: c for o in objs for c in [imported_colour(o)] if c}
    if args.get("color"):
        colours.update({o.Label: rgb(args["color"]) for o in objs})
    for label, c in (args.get("part_colors") or {}).items():
        if label not in [o.Label for o in objs]:
            raise invalid("part_colors names %r, which is not the label of an exported object (%s)" % (
                label, ", ".join(o.Label for o in objs)))
        colours[label] = rgb(c)

    scratch = App.newDocument("export")
    tmp = os.path.join(folder, ".%s.exporting-%d.step" % (os.path.basename(path), os.getpid()))
    try:
        placed = []
        for o in objs:
            shape = global_shape(o)
            if shape is None:
                raise invalid("%s has no shape to export" % o.Name)
            # A rigid move of the geometry itself (transformShape with a
            # copy), not transformGeometry, which would turn cylinders into
            # B-spline approximations.
            matrix = shape.Placement.toMatrix()
            baked = shape.copy()
            baked.Placement = App.Placement()
            baked.transformShape(matrix, True)
            f = scratch.addObject("Part::Feature", "Part")
            f.Shape = baked
            f.Label = o.Label
            placed.append(f)
        scratch.recompute()
        Import.export(placed, tmp)
        if colours:
            with open(tmp, encoding="latin-1") as fh:
                text = fh.read()
            with open(tmp, "w", encoding="latin-1") as fh:
                only = list(colours.values())[0] if len(objs) == 1 else None
                fh.write(add_colours(text, colours, only))
        os.replace(tmp, path)
    except ToolError:
        raise
    except Exception as exc:
        raise failed("exporting to %s failed: %s" % (path, describe_exc(exc)))
    finally:
        App.closeDocument(scratch.Name)
        if os.path.exists(tmp):
            os.remove(tmp)

    written = Part.read(path)
    return {"path": path, "objects": [o.Name for o in objs], "labels": [o.Label for o in objs],
            "colors": colours, "volume_mm3": written.Volume, "surface_area_mm2": written.Area,
            "bounding_box": bbox(written.BoundBox), "bytes": os.path.getsize(path)}


ENTITY = re.compile(r"#(\d+)\s*=\s*(.*?);\s*$", re.S | re.M)
REF = re.compile(r"#(\d+)")


def add_colours(text, colours, only=None):
    """Styles each MANIFOLD_SOLID_BREP with its product's colour. A solid's
    product is found by walking up from it to the SHAPE_DEFINITION_REPRESENTATION
    that names its representation, then down to the PRODUCT's name. only is
    the colour of a file of one part, for a solid whose product is not
    named by its label."""
    head, sep, rest = text.partition("DATA;")
    body, endsec, tail = rest.rpartition("ENDSEC;")
    ents = {int(m.group(1)): m.group(2) for m in ENTITY.finditer(body)}
    users = {}
    for eid, val in ents.items():
        for r in REF.findall(val):
            users.setdefault(int(r), []).append(eid)
    top = max(ents) if ents else 0
    lines = []
    for eid, val in sorted(ents.items()):
        if not val.startswith("MANIFOLD_SOLID_BREP") and not val.startswith("BREP_WITH_VOIDS"):
            continue
        label, context = product_of(eid, ents, users)
        c = colours.get(label)
        if c is None:
            c = only
        if c is None or context is None:
            continue
        n = top
        top += 9
        lines += [
            "#%d = COLOUR_RGB('',%.6f,%.6f,%.6f);" % (n + 1, c[0], c[1], c[2]),
            "#%d = FILL_AREA_STYLE_COLOUR('',#%d);" % (n + 2, n + 1),
            "#%d = FILL_AREA_STYLE('',(#%d));" % (n + 3, n + 2),
            "#%d = SURFACE_STYLE_FILL_AREA(#%d);" % (n + 4, n + 3),
            "#%d = SURFACE_SIDE_STYLE('',(#%d));" % (n + 5, n + 4),
            "#%d = SURFACE_STYLE_USAGE(.BOTH.,#%d);" % (n + 6, n + 5),
            "#%d = PRESENTATION_STYLE_ASSIGNMENT((#%d));" % (n + 7, n + 6),
            "#%d = STYLED_ITEM('color',(#%d),#%d);" % (n + 8, n + 7, eid),
            "#%d = MECHANICAL_DESIGN_GEOMETRIC_PRESENTATION_REPRESENTATION('',(#%d),#%d);" % (n + 9, n + 8, context),
        ]
    if not lines:
        return text
    return head + sep + body.rstrip("\n") + "\n" + "\n".join(lines) + "\n" + endsec + tail


def product_of(brep, ents, users):
    """(product name, representation context) of a solid; (None, None)
    when the chain cannot be followed."""
    context = None
    seen, frontier = set(), [brep]
    for _ in range(6):
        nxt = []
        for eid in frontier:
            for u in users.get(eid, []):
                if u in seen:
                    continue
                seen.add(u)
                val = ents[u]
                if context is None and "SHAPE_REPRESENTATION" in val.split("(")[0]:
                    refs = REF.findall(val)
                    context = int(refs[-1]) if refs else None
                if val.startswith("SHAPE_DEFINITION_REPRESENTATION"):
                    return name_down(int(REF.findall(val)[0]), ents), context
                if val.startswith("SHAPE_REPRESENTATION_RELATIONSHIP") or "REPRESENTATION" in val.split("(")[0]:
                    nxt.append(u)
                    nxt.extend(int(r) for r in REF.findall(val) if int(r) != eid)
        frontier = nxt
    return None, context


def name_down(eid, ents):
    """Follows PRODUCT_DEFINITION_SHAPE -> PRODUCT_DEFINITION ->
    PRODUCT_DEFINITION_FORMATION -> PRODUCT and returns its name."""
    for _ in range(5):
        val = ents.get(eid, "")
        if val.startswith("PRODUCT("):
            m = re.match(r"PRODUCT\s*\(\s*'((?:[^']|'')*)'", val)
            return m.group(1).replace("''", "'") if m else None
        refs = REF.findall(val)
        if not refs:
            return None
        eid = int(refs[-1]) if val.startswith("PRODUCT_DEFINITION_FORMATION") else int(refs[0])
    return None
