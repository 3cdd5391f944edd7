"""Writing a robot model (robot.build_model's dict) as an OpenUSD text stage
(.usda) with UsdPhysics schemas, by our own code: usd-core is not needed to
write it (the tests and omniverse_usd read it back with usd-core).

The stage: metersPerUnit 1, kilogramsPerUnit 1, upAxis Z, the default prim
an Xform named for the robot. Under it, per link, an Xform at the link
frame's origin (axes the assembly's) with PhysicsRigidBodyAPI and
PhysicsMassAPI, and a UsdGeom.Mesh child from the link's STL with
PhysicsCollisionAPI and PhysicsMeshCollisionAPI; per joint, a
Physics*Joint prim beside the links. Rigid bodies are siblings, never
nested: UsdPhysics treats a rigid body under another as part of it.

Units and conventions (UsdPhysics schema docs):
- physics:mass in mass units (kg); physics:centerOfMass in the body's
  frame; physics:diagonalInertia the principal moments, and
  physics:principalAxes the rotation whose columns are the principal axes
  in the body's frame, so that the tensor is R diag(moments) R^T.
- A joint's frame is physics:localPos0/localRot0 in body0's frame and
  localPos1/localRot1 in body1's; physics:axis is X, Y or Z of that frame.
  An arbitrary axis a is written as axis X with the frame turned by the
  rotation taking X onto a.
- Revolute limits are degrees; prismatic limits are distances (metres).
"""
import math
import os
import struct
import uuid

import numpy as np

from .failures import refusal

# The joint prims' names in UsdPhysics, by robot_args.go's jointKind.
JOINT_SCHEMAS = ("PhysicsFixedJoint", "PhysicsPrismaticJoint", "PhysicsRevoluteJoint", "PhysicsSphericalJoint")

# Below this, sin of the angle between X and the axis is taken as zero.
_PARALLEL = 1e-15


def write(model, path, approximation):
    """Writes the stage of model to path, whole or not at all, and returns
    what the result reports of each link and joint."""
    root = "/" + model["robot_name"]
    lines = _header(model)
    api = ' (\n    prepend apiSchemas = ["PhysicsArticulationRootAPI"]\n)' if model["joints"] else ""
    lines += ['def Xform "%s"%s' % (model["robot_name"], api), "{"]
    links, joints, not_exported = [], [], []
    for link in model["links"]:
        body, summary = _link(link, root, approximation)
        lines += body
        links.append(summary)
    for joint in model["joints"]:
        body, summary, missing = _joint(joint, root)
        lines += body
        joints.append(summary)
        not_exported += missing
    lines.append("}")
    _write_atomically(path, "\n".join(lines) + "\n")
    return {"default_prim": root, "links": links, "joints": joints, "not_exported": not_exported}


def _header(model):
    return [
        "#usda 1.0",
        "(",
        '    defaultPrim = "%s"' % model["robot_name"],
        '    doc = "Written by MetaForge\'s CadQuery adapter from the parts\' B-rep: masses are volume x density, inertia is '
        'about each body\'s centre of mass."',
        "    kilogramsPerUnit = 1",
        "    metersPerUnit = 1",
        '    upAxis = "Z"',
        ")",
        "",
    ]


def _link(link, root, approximation):
    name = link["name"]
    points, indices = read_stl(link["mesh_file"])
    lo, hi = points.min(axis=0), points.max(axis=0)
    moments = link["principal_moments_kg_m2"]
    axes = link["principal_axes_quat_wxyz"]
    body = [
        '    def Xform "%s" (' % name,
        '        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]',
        "        customData = {",
        "            dictionary metaforge = {",
        "                double density_kg_m3 = %s" % number(link["density_kg_m3"]),
        '                string material = "%s"' % link["material"],
        "                double volume_mm3 = %s" % number(link["volume_mm3"]),
        "            }",
        "        }",
        "    )",
        "    {",
        "        point3f physics:centerOfMass = %s" % vector(link["com_m"]),
        "        float3 physics:diagonalInertia = %s" % vector(moments),
        "        float physics:mass = %s" % number(link["mass_kg"]),
        "        quatf physics:principalAxes = %s" % vector(axes),
        "        double3 xformOp:translate = %s" % vector(link["origin_m"]),
        '        uniform token[] xformOpOrder = ["xformOp:translate"]',
        "",
        '        def Mesh "mesh" (',
        '            prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"]',
        "        )",
        "        {",
        "            float3[] extent = [%s, %s]" % (vector32(lo), vector32(hi)),
        "            int[] faceVertexCounts = [%s]" % ", ".join(["3"] * (len(indices) // 3)),
        "            int[] faceVertexIndices = [%s]" % ", ".join(str(int(i)) for i in indices),
        '            uniform token physics:approximation = "%s"' % approximation,
        "            point3f[] points = [%s]" % ", ".join(vector32(p) for p in points),
        '            uniform token subdivisionScheme = "none"',
        "        }",
        "    }",
        "",
    ]
    summary = {k: link[k] for k in ("name", "material", "volume_mm3", "mass_kg", "com_m", "inertia_kg_m2", "principal_moments_kg_m2")}
    summary.update({"prim_path": "%s/%s" % (root, name), "principal_axes_wxyz": axes,
                    "point_count": len(points), "triangle_count": len(indices) // 3})
    return body, summary


def _joint(joint, root):
    schema = joint["kind"]
    if schema not in JOINT_SCHEMAS:
        raise refusal("joint %s is of kind %r, which is not a UsdPhysics joint (%s)" % (joint["name"], schema, ", ".join(JOINT_SCHEMAS)))
    rot = align_x(joint["axis"]) if joint["axis"] is not None else [1.0, 0.0, 0.0, 0.0]
    lines = ['    def %s "%s" (' % (schema, joint["name"])]
    limits, missing = joint["limits"], []
    extra = []
    if limits is not None:
        for key in ("effort", "velocity"):
            if limits.get(key) is not None:
                extra.append("                double %s = %s" % (key, number(limits[key])))
        if extra:
            missing.append("joint %s: effort and velocity limits (UsdPhysics has no schema for them; kept in the joint's "
                           "customData metaforge, in SI)" % joint["name"])
    lines += ["        customData = {", "            dictionary metaforge = {"] + extra + [
        '                string type = "%s"' % joint["type"], "            }", "        }", "    )", "    {"]
    if schema != "PhysicsFixedJoint":
        lines.append('        uniform token physics:axis = "X"')
    lines += [
        "        rel physics:body0 = <%s/%s>" % (root, joint["parent"]),
        "        rel physics:body1 = <%s/%s>" % (root, joint["child"]),
        "        point3f physics:localPos0 = %s" % vector(joint["origin_m"]),
        "        point3f physics:localPos1 = (0, 0, 0)",
        "        quatf physics:localRot0 = %s" % vector(rot),
        "        quatf physics:localRot1 = %s" % vector(rot),
    ]
    if limits is not None and schema in ("PhysicsRevoluteJoint", "PhysicsPrismaticJoint"):
        scale = 180 / math.pi if schema == "PhysicsRevoluteJoint" else 1.0  # radians -> degrees; metres stay
        lines += ["        float physics:lowerLimit = %s" % number(limits["lower"] * scale),
                  "        float physics:upperLimit = %s" % number(limits["upper"] * scale)]
    lines += ["    }", ""]
    summary = {"name": joint["name"], "type": schema, "parent": joint["parent"], "child": joint["child"],
               "prim_path": "%s/%s" % (root, joint["name"]), "local_rot_wxyz": rot}
    return lines, summary, missing


def align_x(axis):
    """The unit quaternion [w, x, y, z] of the rotation taking the X axis
    onto the unit vector axis: about X x axis by the angle between them,
    which atan2 keeps accurate at every angle; a half turn about Z when
    axis is -X."""
    ax, ay, az = axis
    # cross((1, 0, 0), axis) = (0, -az, ay); dot = ax.
    s = math.hypot(ay, az)
    if s < _PARALLEL:
        return [1.0, 0.0, 0.0, 0.0] if ax > 0 else [0.0, 0.0, 0.0, 1.0]
    half = math.atan2(s, ax) / 2
    k = math.sin(half) / s
    return [math.cos(half), 0.0, -az * k, ay * k]


def read_stl(path):
    """The binary STL's triangles as shared points (float32, as stored)
    and three indices per triangle, corners equal to the bit merged."""
    with open(path, "rb") as f:
        body = f.read()
    if len(body) < 84:
        raise refusal("%s is too short to be a binary STL" % path)
    (count,) = struct.unpack_from("<I", body, 80)
    if len(body) != 84 + 50 * count:
        raise refusal("%s is not a binary STL of %d triangles (%d bytes, want %d)" % (path, count, len(body), 84 + 50 * count))
    if count == 0:
        raise refusal("%s holds no triangles" % path)
    record = np.frombuffer(body, dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")], count=count, offset=84)
    corners = record["v"].reshape(-1, 3)
    points, inverse = np.unique(corners, axis=0, return_inverse=True)
    return points, inverse.reshape(-1)


def number(v):
    """A double as USD text: the shortest decimal that reads back as the
    same double."""
    v = float(v)
    if not math.isfinite(v):
        raise refusal("a value to write is %r; the model has no finite number there" % v)
    return repr(v + 0.0)  # + 0.0 turns -0.0 into 0.0


def vector(values):
    return "(%s)" % ", ".join(number(v) for v in values)


def vector32(values):
    """A float32 vector as the shortest decimals that read back as the same
    float32 values."""
    return "(%s)" % ", ".join(np.format_float_positional(np.float32(v), unique=True, trim="-") for v in values)


def _write_atomically(path, text):
    tmp = os.path.join(os.path.dirname(path), ".partial-%s.usda" % uuid.uuid4().hex)
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
