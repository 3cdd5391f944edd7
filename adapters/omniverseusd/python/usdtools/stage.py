"""What a USD stage holds, as usd-core reads it: its units and axes, its
prims, its meshes, and its UsdPhysics rigid bodies and joints.

Only authored values are reported: a UsdPhysics attribute left at its
schema fallback (mass 0, centre of mass at -inf, ...) means "let the
simulator compute it", and comes back as null, not as the fallback.
"""
import math

from pxr import Gf, Tf, Usd, UsdGeom, UsdPhysics

from .failures import Refusal

JOINT_TYPES = ("PhysicsFixedJoint", "PhysicsRevoluteJoint", "PhysicsPrismaticJoint", "PhysicsSphericalJoint",
               "PhysicsDistanceJoint", "PhysicsJoint")


def open_stage(path):
    """The stage at path with every payload loaded; a file usd-core cannot
    open is refused with usd-core's own message."""
    try:
        stage = Usd.Stage.Open(path, Usd.Stage.LoadAll)
    except Tf.ErrorException as e:
        raise Refusal("usd-core cannot open %s: %s" % (path, " ".join(str(e).split())))
    if stage is None:
        raise Refusal("usd-core cannot open %s" % path)
    return stage


def units(stage):
    """Up axis and scale, each with whether the file authors it (an
    unauthored one is USD's fallback: Y up, centimetres)."""
    layer = stage.GetRootLayer()
    return {
        "up_axis": str(UsdGeom.GetStageUpAxis(stage)),
        "up_axis_authored": stage.HasAuthoredMetadata(UsdGeom.Tokens.upAxis),
        "meters_per_unit": UsdGeom.GetStageMetersPerUnit(stage),
        "meters_per_unit_authored": UsdGeom.StageHasAuthoredMetersPerUnit(stage),
        "kilograms_per_unit": UsdPhysics.GetStageKilogramsPerUnit(stage),
        "default_prim": str(stage.GetDefaultPrim().GetPath()) if stage.GetDefaultPrim() else None,
        "default_prim_named": layer.defaultPrim or None,
    }


def summary(stage):
    """Counts over the whole stage, cheap enough for a gate."""
    prims = meshes = bodies = joints = 0
    for prim in stage.Traverse():
        prims += 1
        if prim.IsA(UsdGeom.Mesh):
            meshes += 1
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            bodies += 1
        if prim.IsA(UsdPhysics.Joint):
            joints += 1
    out = units(stage)
    out.update({"prim_count": prims, "mesh_count": meshes, "rigid_body_count": bodies, "joint_count": joints})
    return out


def describe(path, max_prims):
    stage = open_stage(path)
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    out = summary(stage)
    prims, meshes, bodies, joints, roots = [], [], [], [], []
    for prim in stage.Traverse():
        if len(prims) < max_prims:
            prims.append(_prim(prim, cache))
        if prim.IsA(UsdGeom.Mesh) and len(meshes) < max_prims:
            meshes.append(_mesh(prim))
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            bodies.append(_body(prim, cache))
        if prim.IsA(UsdPhysics.Joint):
            joints.append(_joint(prim))
        if prim.HasAPI(UsdPhysics.ArticulationRootAPI):
            roots.append(str(prim.GetPath()))
    out.update({
        "file": path,
        "prims": prims,
        "prims_listed": len(prims),
        "meshes": meshes,
        "rigid_bodies": bodies,
        "joints": joints,
        "articulation_roots": roots,
    })
    return out


def _prim(prim, cache):
    entry = {"path": str(prim.GetPath()), "type": str(prim.GetTypeName()),
             "api_schemas": [str(s) for s in prim.GetAppliedSchemas()]}
    if prim.HasAuthoredDisplayName():
        entry["display_name"] = prim.GetDisplayName()
    if prim.IsA(UsdGeom.Xformable):
        entry["world_transform"] = _matrix(cache.GetLocalToWorldTransform(prim))
    return entry


def _mesh(prim):
    mesh = UsdGeom.Mesh(prim)
    points = mesh.GetPointsAttr().Get() or []
    counts = mesh.GetFaceVertexCountsAttr().Get() or []
    return {"path": str(prim.GetPath()), "point_count": len(points), "face_count": len(counts),
            "face_vertex_index_count": len(mesh.GetFaceVertexIndicesAttr().Get() or []),
            "subdivision_scheme": str(mesh.GetSubdivisionSchemeAttr().Get()),
            "collision": prim.HasAPI(UsdPhysics.CollisionAPI),
            "approximation": _authored(prim.GetAttribute("physics:approximation"), str)}


def _body(prim, cache):
    mass = UsdPhysics.MassAPI(prim) if prim.HasAPI(UsdPhysics.MassAPI) else None
    collisions = [str(p.GetPath()) for p in Usd.PrimRange(prim) if p.HasAPI(UsdPhysics.CollisionAPI)]
    out = {"path": str(prim.GetPath()), "mass": None, "density": None, "center_of_mass": None,
           "diagonal_inertia": None, "principal_axes_wxyz": None, "collision_prims": collisions,
           "world_position": list(cache.GetLocalToWorldTransform(prim).ExtractTranslation())}
    if mass is not None:
        out["mass"] = _authored(mass.GetMassAttr(), float)
        out["density"] = _authored(mass.GetDensityAttr(), float)
        out["center_of_mass"] = _authored(mass.GetCenterOfMassAttr(), _vec)
        out["diagonal_inertia"] = _authored(mass.GetDiagonalInertiaAttr(), _vec)
        out["principal_axes_wxyz"] = _authored(mass.GetPrincipalAxesAttr(), _quat)
    return out


def _joint(prim):
    joint = UsdPhysics.Joint(prim)
    out = {"path": str(prim.GetPath()), "type": str(prim.GetTypeName()),
           "body0": _target(joint.GetBody0Rel()), "body1": _target(joint.GetBody1Rel()),
           "local_pos0": _vec(joint.GetLocalPos0Attr().Get()), "local_rot0_wxyz": _quat(joint.GetLocalRot0Attr().Get()),
           "local_pos1": _vec(joint.GetLocalPos1Attr().Get()), "local_rot1_wxyz": _quat(joint.GetLocalRot1Attr().Get()),
           "enabled": bool(joint.GetJointEnabledAttr().Get()),
           "exclude_from_articulation": bool(joint.GetExcludeFromArticulationAttr().Get())}
    axis = prim.GetAttribute("physics:axis")  # defined by the revolute, prismatic and spherical schemas
    if axis:
        token = str(axis.Get())
        out["axis"] = token
        canonical = {"X": Gf.Vec3d(1, 0, 0), "Y": Gf.Vec3d(0, 1, 0), "Z": Gf.Vec3d(0, 0, 1)}.get(token)
        rot = joint.GetLocalRot0Attr().Get()
        if canonical is not None and rot is not None:
            # The joint's axis in body0's frame: the canonical axis turned
            # by localRot0, the joint frame's orientation there.
            q = Gf.Quatd(rot.GetReal(), Gf.Vec3d(rot.GetImaginary()))
            out["axis_in_body0"] = list(Gf.Rotation(q).TransformDir(canonical))
    for name, key in (("physics:lowerLimit", "lower_limit"), ("physics:upperLimit", "upper_limit"),
                      ("physics:coneAngle0Limit", "cone_angle0_limit"), ("physics:coneAngle1Limit", "cone_angle1_limit")):
        attr = prim.GetAttribute(name)
        if attr:
            out[key] = _finite(attr.Get())
    return out


def _target(rel):
    targets = rel.GetTargets() if rel else []
    return str(targets[0]) if targets else None


def _authored(attr, conv):
    if not attr or not attr.HasAuthoredValue():
        return None
    return conv(attr.Get())


def _finite(v):
    """A limit as JSON: an unlimited one (+-inf) is null."""
    if v is None or not math.isfinite(v):
        return None
    return float(v)


def _vec(v):
    return None if v is None else [float(x) for x in v]


def _quat(q):
    if q is None:
        return None
    return [float(q.GetReal())] + [float(x) for x in q.GetImaginary()]


def _matrix(m):
    return [[float(m[i][j]) for j in range(4)] for i in range(4)]

