"""The freecad adapter's file-based tools: one FreeCAD process per call.

Usage: run.py <tool> <arguments as JSON>. The Go side (adapters/freecad)
has checked every argument: input files are absolute paths inside the
workspace, output files are named in the call's own folder, parameters are
complete. This script does the geometry and prints one line
"METAFORGE_JSON {...}" last: {"data": ...} on success, {"error": ...} for a
part or file FreeCAD cannot handle, {"unavailable": ...} when FreeCAD does
not import. FreeCAD's own chatter on stdout comes before it and is skipped.

Every file is written under a temporary name beside its final one and
renamed into place only when whole, so a failed call leaves no half-written
file.
"""
import json
import math
import os
import re
import shutil
import sys
import tempfile
import traceback
import uuid

MARKER = "METAFORGE_JSON "

FreeCAD = Part = None


class Refusal(Exception):
    """A part or file the tool cannot handle; the message says what to fix."""


def emit(obj):
    sys.stdout.write("\n" + MARKER + json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    tool, args = sys.argv[1], json.loads(sys.argv[2])
    # FreeCAD keeps a user folder (preferences, a temp folder); each run
    # gets its own, so no run reads another's preferences or writes $HOME.
    home = tempfile.mkdtemp(prefix="freecad-home-")
    os.environ["FREECAD_USER_HOME"] = home
    try:
        global FreeCAD, Part
        try:
            import FreeCAD as _fc
            import Part as _part
        except ImportError as e:
            emit({"unavailable": "%s: %s" % (type(e).__name__, e)})
            return
        FreeCAD, Part = _fc, _part
        emit({"data": TOOLS[tool](args)})
    except Refusal as e:
        emit({"error": str(e)})
    except Exception as e:  # FreeCAD's own failures: said as they are
        emit({"error": "FreeCAD failed: %s: %s" % (type(e).__name__, e), "trace": traceback.format_exc()[-2000:]})
    finally:
        shutil.rmtree(home, ignore_errors=True)


# ---------------------------------------------------------------- measures

def bounding_box(shape):
    """{min, max, size} of the exact box (not the tolerance-padded one), or
    None for an empty shape."""
    if shape.isNull() or not (shape.Faces or shape.Edges or shape.Vertexes):
        return None
    b = shape.optimalBoundingBox(False)
    if not b.isValid():
        return None
    lo, hi = [b.XMin, b.YMin, b.ZMin], [b.XMax, b.YMax, b.ZMax]
    return {"min": lo, "max": hi, "size": [h - l for l, h in zip(lo, hi)]}


def center_of_mass(shape):
    """The volume-weighted centre of the shape's solids (a compound has no
    CenterOfMass of its own); of its faces, area-weighted, when it has no
    solid."""
    items = [(s.Volume, s.CenterOfMass) for s in shape.Solids if s.Volume > 0]
    if not items:
        items = [(f.Area, f.CenterOfMass) for f in shape.Faces if f.Area > 0]
    total = sum(w for w, _ in items)
    if total <= 0:
        return None
    return [sum(w * c[i] for w, c in items) / total for i in range(3)]


def summary(shape):
    return {"volume_mm3": shape.Volume, "surface_area_mm2": shape.Area, "bounding_box": bounding_box(shape)}


def inertia(shape):
    """The inertia tensor of the solids about their common centre of mass
    for unit density (mm^5), as OpenCASCADE gives it: off-diagonal entries
    are the negated products of inertia. Each solid's MatrixOfInertia is
    about its own centre, moved to the common one by the parallel axis
    theorem."""
    com = center_of_mass(shape)
    t = [[0.0] * 3 for _ in range(3)]
    for s in shape.Solids:
        m, c, mi = s.Volume, s.CenterOfMass, s.MatrixOfInertia
        d = [c[i] - com[i] for i in range(3)]
        dd = sum(x * x for x in d)
        for i in range(3):
            for j in range(3):
                t[i][j] += mi.A[i * 4 + j] + m * ((dd if i == j else 0.0) - d[i] * d[j])
    return t


# ------------------------------------------------------------ reading files

STEP_EXTS = (".step", ".stp")
BREP_EXTS = (".brep", ".brp")
STL_EXTS = (".stl",)
FCSTD_EXTS = (".fcstd",)


def ext(path):
    return os.path.splitext(path)[1].lower()


def load_shape(path):
    """The whole shape in a STEP, BREP or FreeCAD file, in the global frame:
    one shape, a compound when the file holds several parts."""
    if ext(path) in FCSTD_EXTS:
        return compound([shape for _, shape, _ in read_parts(path)])
    shape = Part.Shape()
    try:
        shape.read(path)
    except Exception as e:
        raise Refusal("FreeCAD cannot read %s: %s" % (path, e))
    if shape.isNull() or not shape.Faces:
        raise Refusal("%s holds no shapes with faces" % path)
    return shape


def load_measurable(path):
    """load_shape, or for an STL its triangles sewn into solids: an open
    mesh encloses no volume and is refused."""
    if ext(path) not in STL_EXTS:
        return load_shape(path)
    import Mesh
    mesh = Mesh.Mesh(path)
    if mesh.CountFacets == 0:
        raise Refusal("%s holds no triangles" % path)
    if not mesh.isSolid():
        raise Refusal("%s is an open mesh: some triangle edges belong to one triangle only, so it encloses no volume; "
                      "give a closed (watertight) STL, or the part's STEP" % path)
    sewn = Part.Shape()
    sewn.makeShapeFromMesh(mesh.Topology, 1e-6)
    sewn.sewShape()
    solids = []
    for shell in sewn.Shells:
        solid = Part.Solid(shell)
        if solid.Volume < 0:
            solid.reverse()
        solids.append(solid)
    if not solids:
        raise Refusal("the triangles of %s do not close into a solid" % path)
    return compound(solids)


def compound(shapes):
    return shapes[0] if len(shapes) == 1 else Part.makeCompound(shapes)


def _import_prefs():
    # Headless, the importer's default (a link group per assembly) exits the
    # process; plain Part::Feature objects under App::Part keep the labels.
    p = FreeCAD.ParamGet("User parameter:BaseApp/Preferences/Mod/Import")
    p.SetBool("UseLinkGroup", False)
    p.SetBool("UseLegacyImporter", False)
    p.SetInt("ImportMode", 0)


def import_step_doc(path):
    """A new document holding the STEP's parts: one Part::Feature per part
    (STEP product), labelled as in the file, placed under App::Part
    containers for its assemblies."""
    import Import
    _import_prefs()
    doc = FreeCAD.newDocument("stepimport")
    try:
        Import.insert(path, doc.Name)
    except Exception as e:
        raise Refusal("FreeCAD cannot read the STEP file %s: %s" % (path, e))
    return doc


def leaf_objects(doc):
    """The document's parts: objects with a shape of their own, not the
    containers (App::Part) that group them."""
    out = []
    for o in doc.Objects:
        if not o.isDerivedFrom("Part::Feature"):
            continue
        shape = o.Shape
        if shape.isNull() or not shape.Faces:
            continue
        # A feature some other feature consumed (a boolean's input, a
        # body's tip chain) is not a part of its own.
        if any(p.isDerivedFrom("Part::Feature") for p in o.InList):
            continue
        out.append(o)
    return out


def global_shape(obj):
    """obj's shape placed in the global frame (its containers' placements
    applied) and baked into the geometry."""
    shape = obj.Shape.copy()
    shape.Placement = obj.getGlobalPlacement()
    return bake(shape)


def bake(shape):
    """The shape with its placement moved into its geometry, so a reader
    that drops placements (a mesher) sees the same coordinates."""
    m = shape.Placement.toMatrix()
    out = shape.copy()
    out.Placement = FreeCAD.Placement()
    out.transformShape(m, True)  # copy=True: new geometry, not a location
    return out


COLOR_PROPERTY = "MetaforgeColor"
COLOR_SOURCE_PROPERTY = "MetaforgeColorSource"


def read_parts(path):
    """[(label, global shape, colour or None)] of the parts in a STEP or
    FreeCAD file; a BREP is one part named after the file."""
    e = ext(path)
    if e in BREP_EXTS:
        return [(os.path.splitext(os.path.basename(path))[0], load_shape(path), None)]
    if e in FCSTD_EXTS:
        try:
            doc = FreeCAD.openDocument(path)
        except Exception as err:
            raise Refusal("FreeCAD cannot open %s: %s" % (path, err))
        parts = [(o.Label, global_shape(o), _stored_colour(o)) for o in leaf_objects(doc)]
    else:
        doc = import_step_doc(path)
        colours = step_colours(path)
        objs = leaf_objects(doc)
        parts = [(o.Label, global_shape(o), colours.for_label(o.Label, len(objs))) for o in objs]
    if not parts:
        raise Refusal("%s holds no parts with faces" % path)
    return parts


def _stored_colour(obj):
    if COLOR_PROPERTY not in obj.PropertiesList:
        return None
    try:
        c = json.loads(getattr(obj, COLOR_PROPERTY))
    except ValueError:
        return None
    return c if isinstance(c, list) and len(c) == 3 else None


def pick_part(parts, label, field, path):
    for p in parts:
        if p[0] == label:
            return p
    raise Refusal("%s %s is not a part of %s; its parts are %s" % (
        field, json.dumps(label), path, ", ".join(json.dumps(p[0]) for p in parts)))


# --------------------------------------------------------- STEP colours

class Colours:
    """The colours a STEP file gives its products, read from its text:
    headless FreeCAD drops them on import."""

    def __init__(self, by_product, distinct):
        self.by_product = by_product
        self.distinct = distinct

    def for_label(self, label, part_count):
        if label in self.by_product:
            return self.by_product[label]
        base = re.sub(r"\d{3}$", "", label)  # FreeCAD's de-duplication suffix
        if base in self.by_product:
            return self.by_product[base]
        if part_count == 1 and len(self.distinct) == 1:
            return self.distinct[0]
        return None


_ENTITY = re.compile(r"#(\d+)\s*=\s*((?:'(?:[^']|'')*'|[^;'])*);")
_STRING = re.compile(r"'(?:[^']|'')*'")
_REF = re.compile(r"#(\d+)")
_TYPE = re.compile(r"\s*([A-Z_][A-Z0-9_]*)\s*\(")
# PRESENTATION as a word of a type name, not inside REPRESENTATION.
_PRESENTATION = re.compile(r"(^|_)PRESENTATION(_|$)")

_NAMED_COLOURS = {
    "red": [1.0, 0.0, 0.0], "green": [0.0, 1.0, 0.0], "blue": [0.0, 0.0, 1.0], "yellow": [1.0, 1.0, 0.0],
    "magenta": [1.0, 0.0, 1.0], "cyan": [0.0, 1.0, 1.0], "black": [0.0, 0.0, 0.0], "white": [1.0, 1.0, 1.0],
}


def _unquote(s):
    return s[1:-1].replace("''", "'")


def step_colours(path):
    """Colours by product name: STYLED_ITEM -> PRESENTATION_STYLE_ASSIGNMENT
    -> SURFACE_STYLE_USAGE -> SURFACE_SIDE_STYLE -> SURFACE_STYLE_FILL_AREA
    -> FILL_AREA_STYLE -> FILL_AREA_STYLE_COLOUR -> COLOUR_RGB, the styled
    item (a solid, a shell or a face) being traced up to its shape
    representation and from there to the PRODUCT it represents. A product
    with several colours (coloured faces) takes the one of its solid, else
    its most common."""
    with open(path, "r", encoding="latin-1") as f:
        text = f.read()
    start = text.find("DATA;")
    body = text[start + 5:] if start >= 0 else text
    kind, args, refs = {}, {}, {}
    for m in _ENTITY.finditer(body):
        n, rest = int(m.group(1)), m.group(2)
        t = _TYPE.match(rest)
        kind[n] = t.group(1) if t else ""
        args[n] = rest
        refs[n] = [int(r) for r in _REF.findall(_STRING.sub("", rest))]
    back = {}
    for n, rs in refs.items():
        for r in rs:
            back.setdefault(r, []).append(n)

    def colour_of(n, seen):
        if n in seen:
            return None
        seen.add(n)
        k = kind.get(n, "")
        if k == "COLOUR_RGB":
            nums = re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", _STRING.sub("", args[n]))
            return [float(x) for x in nums[-3:]] if len(nums) >= 3 else None
        if k == "DRAUGHTING_PRE_DEFINED_COLOUR":
            names = _STRING.findall(args[n])
            return _NAMED_COLOURS.get(_unquote(names[0]).lower()) if names else None
        if k in ("CURVE_STYLE",):  # a line colour, not the part's
            return None
        for r in refs.get(n, []):
            c = colour_of(r, seen)
            if c is not None:
                return c
        return None

    def is_rep(k):
        return k.endswith("REPRESENTATION") and not _PRESENTATION.search(k) and "RELATIONSHIP" not in k

    def product_of_rep(rep):
        reps = [rep]
        for user in back.get(rep, []):
            # A product's own shape representation may hold the B-rep one
            # through a plain relationship (not an assembly's placement).
            if kind.get(user) == "SHAPE_REPRESENTATION_RELATIONSHIP":
                reps += [r for r in refs[user] if r != rep and is_rep(kind.get(r, ""))]
        for r in reps:
            for user in back.get(r, []):
                if kind.get(user) == "SHAPE_DEFINITION_REPRESENTATION" and refs[user][-1] == r:
                    name = _product_name(user)
                    if name is not None:
                        return name
        return None

    def _product_name(sdr):
        n = refs[sdr][0]  # PRODUCT_DEFINITION_SHAPE
        for _ in range(4):  # -> PRODUCT_DEFINITION -> ..._FORMATION -> PRODUCT
            if kind.get(n) == "PRODUCT":
                names = _STRING.findall(args[n])
                return _unquote(names[0]) if names else ""
            rs = refs.get(n, [])
            if not rs:
                return None
            n = rs[0]
        return _unquote(_STRING.findall(args[n])[0]) if kind.get(n) == "PRODUCT" else None

    rep_cache = {}

    def rep_of(item):
        """The shape representation holding item, walking up from a face
        or shell through the entities that use it."""
        frontier, seen = [item], {item}
        while frontier:
            nxt = []
            for n in frontier:
                if n in rep_cache:
                    return rep_cache[n]
                if is_rep(kind.get(n, "")):
                    return n
                for user in back.get(n, []):
                    k = kind.get(user, "")
                    if user in seen or "STYLED_ITEM" in k or "RELATIONSHIP" in k or _PRESENTATION.search(k):
                        continue
                    seen.add(user)
                    nxt.append(user)
            frontier = nxt
        return None

    found = {}  # product -> [(is_solid_level, colour)]
    distinct = []
    for n, k in kind.items():
        if k not in ("STYLED_ITEM", "OVER_RIDING_STYLED_ITEM") or not refs[n]:
            continue
        item = refs[n][-1]
        styles = refs[n][:-1]
        if k == "OVER_RIDING_STYLED_ITEM":
            styles, item = refs[n][:-2], refs[n][-2]
        colour = None
        for s in styles:
            colour = colour_of(s, set())
            if colour is not None:
                break
        if colour is None:
            continue
        colour = [round(min(max(c, 0.0), 1.0), 6) for c in colour]
        if colour not in distinct:
            distinct.append(colour)
        rep = rep_of(item)
        rep_cache[item] = rep
        if rep is None:
            continue
        product = product_of_rep(rep)
        if product is None:
            continue
        solid = kind.get(item, "") in ("MANIFOLD_SOLID_BREP", "BREP_WITH_VOIDS", "SHELL_BASED_SURFACE_MODEL")
        found.setdefault(product, []).append((solid, colour))
    by_product = {}
    for product, cs in found.items():
        solid = [c for s, c in cs if s]
        if solid:
            by_product[product] = solid[0]
        else:
            counts = {}
            for _, c in cs:
                counts[tuple(c)] = counts.get(tuple(c), 0) + 1
            by_product[product] = list(max(counts, key=counts.get))
    return Colours(by_product, distinct)


# ------------------------------------------------------------ writing files

def temp_beside(path):
    """A fresh name in path's folder that keeps its extension (FreeCAD picks
    the format by it). The file is not made: FreeCAD's document writer
    keeps a backup of a file it overwrites."""
    d, name = os.path.split(path)
    return os.path.join(d, ".partial-%s%s" % (uuid.uuid4().hex, os.path.splitext(name)[1]))


def write_atomically(path, write):
    tmp = temp_beside(path)
    try:
        write(tmp)
        if not os.path.isfile(tmp) or os.path.getsize(tmp) == 0:
            raise Refusal("FreeCAD wrote nothing to %s" % path)
        os.replace(tmp, path)
    finally:
        for left in (tmp, tmp + "1"):  # the partial file, a backup of it
            if os.path.exists(left):
                os.remove(left)


def export_shape(shape, fmt, path, tolerance=0.1, angular_tolerance=0.1):
    def write(tmp):
        if fmt == "step":
            shape.exportStep(tmp)
        elif fmt == "brep":
            shape.exportBrep(tmp)
        elif fmt in ("stl", "obj"):
            import MeshPart
            mesh = MeshPart.meshFromShape(Shape=shape, LinearDeflection=tolerance,
                                          AngularDeflection=angular_tolerance, Relative=False)
            if mesh.CountFacets == 0:
                raise Refusal("the shape has no faces to mesh, so there is no %s to write" % fmt.upper())
            mesh.write(tmp)
        else:
            raise Refusal("unknown format %r" % fmt)
    write_atomically(path, write)


# ------------------------------------------------------------- the shapes

def build_shape(kind, p):
    """The shapes of cadquery.create_parametric, built the same way (see
    adapters/cadquery/python/cqkernel/shapes.py), centred so the bounding
    box is symmetric about the origin."""
    shape = _BUILDERS[kind](p)
    box = bounding_box(shape)
    centre = [(lo + hi) / 2 for lo, hi in zip(box["min"], box["max"])]
    shape.translate(FreeCAD.Vector(-centre[0], -centre[1], -centre[2]))
    return bake(shape)


def V(x, y, z):
    return FreeCAD.Vector(x, y, z)


def _box(p):
    return Part.makeBox(p["length"], p["width"], p["height"])


def _cylinder(p):
    solid = Part.makeCylinder(p["diameter"] / 2, p["height"])
    if p["bore_diameter"] > 0:
        solid = solid.cut(Part.makeCylinder(p["bore_diameter"] / 2, p["height"] + 2, V(0, 0, -1)))
    return solid


def _plate(p):
    length, width, t = p["length"], p["width"], p["thickness"]
    plate = Part.makeBox(length, width, t, V(-length / 2, -width / 2, -t / 2))
    r = p["corner_radius"]
    if r > 0:
        vertical = [e for e in plate.Edges if abs(e.Vertexes[0].Z - e.Vertexes[1].Z) > t / 2]
        plate = plate.makeFillet(r, vertical)
    if p["hole_diameter"] > 0:
        m, hr = p["hole_margin"], p["hole_diameter"] / 2
        for sx in (-1, 1):
            for sy in (-1, 1):
                c = V(sx * (length / 2 - m), sy * (width / 2 - m), -t / 2 - 1)
                plate = plate.cut(Part.makeCylinder(hr, t + 2, c))
    return Part.Solid(plate.Solids[0]) if len(plate.Solids) == 1 else plate


def _bracket(p):
    length, width, height, t = p["length"], p["width"], p["height"], p["thickness"]
    pts = [(0, 0), (length, 0), (length, t), (t, t), (t, height), (0, height), (0, 0)]
    wire = Part.makePolygon([V(x, 0, z) for x, z in pts])
    bracket = Part.Face(wire).extrude(V(0, width, 0))
    if p["hole_diameter"] > 0:
        r, y = p["hole_diameter"] / 2, width / 2
        base = Part.makeCylinder(r, t + 2, V(t + (length - t) / 2, y, -1), V(0, 0, 1))
        upright = Part.makeCylinder(r, t + 2, V(-1, y, t + (height - t) / 2), V(1, 0, 0))
        bracket = bracket.cut(base).cut(upright)
    return bracket


def _enclosure(p):
    length, width, height, t = p["length"], p["width"], p["height"], p["wall_thickness"]
    outer = Part.makeBox(length, width, height)
    cavity = Part.makeBox(length - 2 * t, width - 2 * t, height, V(t, t, t))
    return outer.cut(cavity)


_BUILDERS = {"box": _box, "cylinder": _cylinder, "plate": _plate, "bracket": _bracket, "enclosure": _enclosure}


# ---------------------------------------------------------------- the tools

def version(args):
    v = FreeCAD.Version()
    return {"version": ".".join(v[:3])}


def create_parametric(args):
    shape = build_shape(args["shape_type"], args["parameters"])
    if not shape.isValid():
        raise Refusal("FreeCAD built an invalid %s from these parameters" % args["shape_type"])
    export_shape(shape, "step", args["cad_file"])
    return dict(cad_file=args["cad_file"], **summary(shape))


def boolean_operation(args):
    a, b = load_shape(args["file_a"]), load_shape(args["file_b"])
    op = args["operation"]
    result = {"union": a.fuse, "subtract": a.cut, "intersect": a.common}[op](b)
    if result.Solids:
        try:
            result = result.removeSplitter()  # merge the faces the operation split
        except Exception:
            pass
    export_shape(result, "step", args["output_file"])
    return {"output_file": args["output_file"], "operation": op, "result_volume": result.Volume,
            "result_area": result.Area, "bounding_box": bounding_box(result), "solid_count": len(result.Solids)}


def get_properties(args):
    shape = load_measurable(args["file"])
    vol = shape.Volume
    if vol <= 0 or not shape.Solids:
        raise Refusal("%s holds no solid (its volume is %g mm^3), so it has no mass properties; "
                      "give a STEP or BREP file of a closed solid" % (args["file"], vol))
    return {"volume": vol, "area": shape.Area, "center_of_mass": center_of_mass(shape),
            "bounding_box": bounding_box(shape), "inertia": inertia(shape), "solid_count": len(shape.Solids)}


def export_geometry(args):
    shape = load_shape(args["file"])
    export_shape(shape, args["format"], args["output_file"], args["tolerance"], args["angular_tolerance"])
    return {"output_file": args["output_file"], "format": args["format"],
            "file_size_bytes": os.path.getsize(args["output_file"])}


def _part_record(label, shape, colour):
    return dict(label=label, color=colour, **summary(shape))


def _totals(parts, path):
    whole = compound([s for _, s, _ in parts])
    return {"input_file": path, "part_count": len(parts),
            "parts": [_part_record(*p) for p in parts],
            "total_volume_mm3": sum(s.Volume for _, s, _ in parts),
            "total_surface_area_mm2": sum(s.Area for _, s, _ in parts),
            "bounding_box": bounding_box(whole)}


def describe_step_file(args):
    return _totals(read_parts(args["file"]), args["file"])


def import_step(args):
    path, out = args["file"], args["output_file"]
    doc = import_step_doc(path)
    colours = step_colours(path)
    objs = leaf_objects(doc)
    if not objs:
        raise Refusal("%s holds no parts with faces" % path)
    parts = []
    for o in objs:
        colour = colours.for_label(o.Label, len(objs))
        if colour is not None:
            o.addProperty("App::PropertyString", COLOR_PROPERTY, "MetaForge",
                          "The part's colour in its STEP file, [r, g, b] 0-1")
            setattr(o, COLOR_PROPERTY, json.dumps(colour))
            o.addProperty("App::PropertyString", COLOR_SOURCE_PROPERTY, "MetaForge", "Where the colour came from")
            setattr(o, COLOR_SOURCE_PROPERTY, "imported_step")
        parts.append((o.Label, global_shape(o), colour))
    doc.recompute()
    write_atomically(out, lambda tmp: doc.saveAs(tmp))
    data = _totals(parts, path)
    data["output_file"] = out
    return data


def measure(args):
    path = args["file"]
    label, other = args.get("part"), args.get("to_part")
    if label is None:
        shape = load_shape(path) if ext(path) not in (STEP_EXTS + FCSTD_EXTS) else compound(
            [s for _, s, _ in read_parts(path)])
    else:
        parts = read_parts(path)
        shape = pick_part(parts, label, "part", path)[1]
    data = dict(input_file=path, part=label, center_of_mass=center_of_mass(shape),
                solid_count=len(shape.Solids), **summary(shape))
    if other is not None:
        target = pick_part(parts, other, "to_part", path)[1]
        dist, pairs, _ = shape.distToShape(target)
        p, q = pairs[0]
        data.update(to_part=other, distance_mm=dist, closest_points=[[p.x, p.y, p.z], [q.x, q.y, q.z]])
    return data


def transform_object(args):
    path, out = args["file"], args["output_file"]
    label = args.get("part")
    if label is None:
        shape = compound([s for _, s, _ in read_parts(path)]) if ext(path) in STEP_EXTS + FCSTD_EXTS else load_shape(path)
    else:
        shape = pick_part(read_parts(path), label, "part", path)[1]
    rot = FreeCAD.Rotation()
    centre = V(0, 0, 0)
    if args.get("rotate"):
        r = args["rotate"]
        rot = FreeCAD.Rotation(V(*r["axis"]), r["angle_deg"])
        centre = V(*r.get("center", [0, 0, 0]))
    move = V(*args.get("translate", [0, 0, 0]))
    # x -> R (x - c) + c + t
    placement = FreeCAD.Placement(move + centre - rot.multVec(centre), rot)

    located = shape.copy()
    located.Placement = placement.multiply(shape.Placement)
    expected = bounding_box(located)  # OpenCASCADE applying the placement as a location
    result = bake(located)
    export_shape(result, ext(out).lstrip(".").replace("stp", "step").replace("brp", "brep"), out)
    written = load_shape(out)
    got = bounding_box(written)
    size = max(max(expected["size"]), 1.0)
    tol = 1e-6 * size + 1e-4
    for key in ("min", "max"):
        for i in range(3):
            if abs(got[key][i] - expected[key][i]) > tol:
                os.remove(out)
                raise Refusal("the transformed part is not where the transform puts it: its bounding box %s is %s, "
                              "expected %s; nothing was written" % (key, got[key], expected[key]))
    if abs(written.Volume - shape.Volume) > 1e-6 * max(abs(shape.Volume), 1.0):
        os.remove(out)
        raise Refusal("the transformed part's volume %g differs from the original's %g; nothing was written" % (
            written.Volume, shape.Volume))
    axis, angle = placement.Rotation.Axis, placement.Rotation.Angle
    base = placement.Base
    return dict(input_file=path, part=label, output_file=out,
                placement={"position": [base.x, base.y, base.z],
                           "rotation": {"axis": [axis.x, axis.y, axis.z], "angle_deg": math.degrees(angle)},
                           "matrix": [[placement.toMatrix().A[i * 4 + j] for j in range(4)] for i in range(4)]},
                **summary(written))


def bake_step(args):
    """generate_mesh's first half: the file's shape, placements applied to
    its geometry, as a STEP the mesher reads."""
    path, out = args["file"], args["output_file"]
    shape = compound([s for _, s, _ in read_parts(path)]) if ext(path) in STEP_EXTS + FCSTD_EXTS else load_shape(path)
    export_shape(shape, "step", out)
    return {"output_file": out, "bounding_box": bounding_box(shape)}


TOOLS = {
    "version": version,
    "create_parametric": create_parametric,
    "boolean_operation": boolean_operation,
    "get_properties": get_properties,
    "export_geometry": export_geometry,
    "describe_step_file": describe_step_file,
    "import_step": import_step,
    "measure": measure,
    "transform_object": transform_object,
    "bake_step": bake_step,
}

if __name__ == "__main__":
    main()
