"""A .glb turned into a USD stage: one Xform per glTF node, keeping its name
and its transform, and one UsdGeom.Mesh per triangle primitive of the
node's mesh.

glTF is Y up, right-handed, and in metres (glTF 2.0, "Coordinate System
and Units"); the stage says upAxis "Y" and metersPerUnit of the length
unit the caller names: "m" as glTF defines, or "mm" for the files
OpenCASCADE writes from millimetre models (CadQuery's GLB), whose numbers
are millimetres. Points and transforms are copied as they are; only the
stage's metadata states the unit.

A node's name becomes a valid USD identifier (Tf.MakeValidIdentifier,
made unique among its siblings); the name as the file gives it is kept as
the prim's displayName and in customData "gltf:name".
"""
import os
import uuid

from pxr import Gf, Sdf, Tf, Usd, UsdGeom, Vt

from . import glb
from .failures import Refusal

METERS_PER_UNIT = {"m": 1.0, "mm": 0.001}

# How many nodes the result lists one by one.
MAX_LISTED_NODES = 1000


def convert(args):
    src, out, unit = args["file"], args["output_file"], args["length_unit"]
    model = glb.read(src)
    roots = _scene_roots(model)
    tmp = _temp_beside(out)
    try:
        stage = Usd.Stage.CreateNew(tmp)
        writer = _Writer(model, stage)
        UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
        UsdGeom.SetStageMetersPerUnit(stage, METERS_PER_UNIT[unit])
        scene = _scene(model)
        root_name = Tf.MakeValidIdentifier(scene.get("name") or "Scene")
        root = UsdGeom.Xform.Define(stage, Sdf.Path.absoluteRootPath.AppendChild(root_name))
        if scene.get("name"):
            root.GetPrim().SetDisplayName(scene["name"])
        stage.SetDefaultPrim(root.GetPrim())
        stage.GetRootLayer().documentation = "Converted from %s by MetaForge omniverse_usd.convert_glb_to_usd" % os.path.basename(src)
        taken = set()
        for index in roots:
            writer.node(index, root.GetPath(), taken)
        if writer.mesh_count == 0:
            raise Refusal("%s has no triangle meshes in its scene: nothing to convert%s" % (src, writer.skipped_note()))
        stage.GetRootLayer().Save()
        del stage
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return {
        "output_file": out,
        "format": "usda" if out.lower().endswith(".usda") else "usdc",
        "up_axis": "Y",
        "meters_per_unit": METERS_PER_UNIT[unit],
        "default_prim": "/" + root_name,
        "node_count": writer.node_count,
        "mesh_count": writer.mesh_count,
        "point_count": writer.point_count,
        "triangle_count": writer.triangle_count,
        "nodes": writer.listed,
        "nodes_listed": len(writer.listed),
        "skipped": writer.skipped,
        "not_converted": _not_converted(model),
    }


def _scene(model):
    scenes = model.list("scenes")
    if not scenes:
        return {}
    i = model.doc.get("scene", 0)
    if not 0 <= i < len(scenes):
        raise Refusal("%s: scene %d does not exist (the file has %d)" % (model.path, i, len(scenes)))
    return scenes[i]


def _scene_roots(model):
    """The nodes the scene draws from: the default scene's, or with no
    scenes every node that is no other node's child."""
    nodes = model.list("nodes")
    if model.list("scenes"):
        roots = _scene(model).get("nodes") or []
    else:
        children = {c for n in nodes for c in n.get("children") or []}
        roots = [i for i in range(len(nodes)) if i not in children]
    for i in roots:
        if not 0 <= i < len(nodes):
            raise Refusal("%s: the scene names node %d, which does not exist (the file has %d)" % (model.path, i, len(nodes)))
    if not roots:
        raise Refusal("%s has no nodes in its scene: nothing to convert" % model.path)
    return roots


def _not_converted(model):
    """What the file has that a stage of meshes and transforms does not
    carry, counted, so its absence is said rather than silent."""
    out = {}
    for key in ("animations", "skins", "cameras", "textures"):
        if model.list(key):
            out[key] = len(model.list(key))
    return out


def _unique(name, taken):
    base = Tf.MakeValidIdentifier(name or "node")
    candidate, k = base, 1
    while candidate in taken:
        candidate = "%s_%d" % (base, k)
        k += 1
    taken.add(candidate)
    return candidate


def _temp_beside(path):
    """A new name beside path with its extension, which sets the format
    USD writes (usda text, usdc crate)."""
    d, name = os.path.split(path)
    ext = os.path.splitext(name)[1]
    return os.path.join(d, ".partial-%s%s" % (uuid.uuid4().hex, ext))


class _Writer:
    def __init__(self, model, stage):
        self.model, self.stage = model, stage
        self.node_count = self.mesh_count = self.point_count = self.triangle_count = 0
        self.listed, self.skipped = [], []
        self._visiting = set()

    def skipped_note(self):
        if not self.skipped:
            return ""
        return " (skipped: %s)" % "; ".join("%s: %s" % (s["what"], s["reason"]) for s in self.skipped[:5])

    def node(self, index, parent, taken):
        if index in self._visiting:
            raise Refusal("%s: node %d is its own ancestor; glTF nodes form a tree" % (self.model.path, index))
        self._visiting.add(index)
        nodes = self.model.list("nodes")
        node = nodes[index]
        name = node.get("name")
        path = parent.AppendChild(_unique(name or "node_%d" % index, taken))
        xf = UsdGeom.Xform.Define(self.stage, path)
        prim = xf.GetPrim()
        if name:
            prim.SetDisplayName(name)
        prim.SetCustomDataByKey("gltf:node", index)
        if name is not None:
            prim.SetCustomDataByKey("gltf:name", name)
        self._transform(xf, node)
        self.node_count += 1
        child_names = set()
        meshes, points = [], 0
        if "mesh" in node:
            meshes, points = self._mesh(node["mesh"], path, child_names, index)
        if len(self.listed) < MAX_LISTED_NODES:
            self.listed.append({"index": index, "name": name, "path": str(path), "mesh_prims": meshes,
                                "point_count": points})
        for c in node.get("children") or []:
            if not 0 <= c < len(nodes):
                raise Refusal("%s: node %d names child %d, which does not exist" % (self.model.path, index, c))
            self.node(c, path, child_names)
        self._visiting.discard(index)

    def _transform(self, xf, node):
        """The node's local transform as xform ops: its matrix as one
        transform op, or translate, orient, scale (glTF's T * R * S)."""
        if "matrix" in node:
            m = node["matrix"]
            if len(m) != 16:
                raise Refusal("%s: node %r has a matrix of %d numbers, not 16" % (self.model.path, node.get("name"), len(m)))
            # glTF stores the column-vector matrix column by column; read
            # row by row, the same numbers are USD's row-vector matrix.
            xf.AddTransformOp().Set(Gf.Matrix4d(*[float(v) for v in m]))
            return
        if "translation" in node:
            xf.AddTranslateOp().Set(Gf.Vec3d(*[float(v) for v in node["translation"]]))
        if "rotation" in node:
            x, y, z, w = [float(v) for v in node["rotation"]]
            xf.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Quatd(w, x, y, z))
        if "scale" in node:
            xf.AddScaleOp().Set(Gf.Vec3d(*[float(v) for v in node["scale"]]))

    def _mesh(self, mesh_index, parent, taken, node_index):
        meshes = self.model.list("meshes")
        if not 0 <= mesh_index < len(meshes):
            raise Refusal("%s: node %d names mesh %d, which does not exist" % (self.model.path, node_index, mesh_index))
        mesh = meshes[mesh_index]
        prims = mesh.get("primitives") or []
        base = mesh.get("name") or "mesh"
        paths, points = [], 0
        for k, prim in enumerate(prims):
            what = "mesh %r primitive %d" % (mesh.get("name") or mesh_index, k)
            mode = prim.get("mode", glb.TRIANGLES)
            attrs = prim.get("attributes") or {}
            if "POSITION" not in attrs:
                self.skipped.append({"what": what, "reason": "no POSITION attribute"})
                continue
            if mode not in (glb.TRIANGLES, glb.TRIANGLE_STRIP, glb.TRIANGLE_FAN):
                name = glb.MODE_NAMES[mode] if 0 <= mode < len(glb.MODE_NAMES) else str(mode)
                self.skipped.append({"what": what, "reason": "draws %s, not triangles; a UsdGeom.Mesh holds faces" % name})
                continue
            pos = self.model.accessor(attrs["POSITION"])
            count = len(pos) // 3
            indices = self.model.accessor(prim["indices"]) if "indices" in prim else range(count)
            tris = glb.triangles(mode, indices)
            bad = next((i for i in tris if not 0 <= i < count), None)
            if bad is not None:
                raise Refusal("%s: %s indexes vertex %d of %d" % (self.model.path, what, bad, count))
            name = _unique(base if len(prims) == 1 else "%s_%d" % (base, k), taken)
            path = parent.AppendChild(name)
            usd_mesh = UsdGeom.Mesh.Define(self.stage, path)
            pts = Vt.Vec3fArray.FromNumpy(_as_rows(pos)) if _numpy else Vt.Vec3fArray(
                [Gf.Vec3f(pos[i], pos[i + 1], pos[i + 2]) for i in range(0, len(pos), 3)])
            usd_mesh.CreatePointsAttr(pts)
            usd_mesh.CreateFaceVertexCountsAttr(Vt.IntArray([3] * (len(tris) // 3)))
            usd_mesh.CreateFaceVertexIndicesAttr(Vt.IntArray(tris))
            usd_mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
            usd_mesh.CreateExtentAttr(UsdGeom.PointBased.ComputeExtent(pts))
            if "NORMAL" in attrs:
                normals = self.model.accessor(attrs["NORMAL"])
                if len(normals) == len(pos):
                    usd_mesh.CreateNormalsAttr(Vt.Vec3fArray(
                        [Gf.Vec3f(normals[i], normals[i + 1], normals[i + 2]) for i in range(0, len(normals), 3)]))
                    usd_mesh.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
            self._material(usd_mesh, prim)
            if mesh.get("name"):
                usd_mesh.GetPrim().SetCustomDataByKey("gltf:mesh", mesh["name"])
            paths.append(str(path))
            points += count
            self.mesh_count += 1
            self.point_count += count
            self.triangle_count += len(tris) // 3
        return paths, points

    def _material(self, usd_mesh, prim):
        """The base colour (and double-sidedness) of the primitive's
        material, as displayColor/displayOpacity; textures are not read."""
        mats = self.model.list("materials")
        i = prim.get("material")
        if i is None or not 0 <= i < len(mats):
            return
        mat = mats[i]
        usd_mesh.CreateDoubleSidedAttr(bool(mat.get("doubleSided", False)))
        color = (mat.get("pbrMetallicRoughness") or {}).get("baseColorFactor")
        if color and len(color) == 4:
            usd_mesh.CreateDisplayColorPrimvar(UsdGeom.Tokens.constant).Set(Vt.Vec3fArray([Gf.Vec3f(*color[:3])]))
            if color[3] < 1:
                usd_mesh.CreateDisplayOpacityPrimvar(UsdGeom.Tokens.constant).Set(Vt.FloatArray([color[3]]))


try:
    import numpy as _np
    _numpy = True
except ImportError:  # numpy comes with usd-core's usual installs, not always
    _numpy = False


def _as_rows(flat):
    return _np.frombuffer(flat, dtype=_np.float32).reshape(-1, 3) if flat.typecode == "f" else \
        _np.asarray(flat, dtype=_np.float32).reshape(-1, 3)
