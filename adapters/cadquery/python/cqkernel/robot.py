"""The robot model every robot description (URDF, SDF, USD) is written from:
one link per part, with its mass properties from the exact B-rep and its
mesh, and the joints between links. The Go side (adapters/cadquery/
robot_args.go) has checked the request: parts root first, every base
before its followers, densities looked up, joint limits in SI, each joint's
name in the target format ("kind").

build_model(req, out_dir) returns:
  {"robot_name",
   "links": [{"name", "material", "density_kg_m3", "volume_mm3", "mass_kg",
              "origin_m",        # link frame origin in the assembly frame; axes are the assembly's
              "com_m",           # centre of mass in the link frame
              "inertia_kg_m2",   # about the COM, link axes; off-diagonals are the tensor's:
                                 # ixy = -integral(x y dm), as URDF, SDF and USD want them
              "principal_moments_kg_m2", "principal_axes_quat_wxyz",
              "mesh_file", "mesh_name"}],       # binary STL, metres, link frame
   "joints": [{"name", "type", "kind", "parent", "child",
               "origin_m",       # child link frame relative to the parent's
               "axis",           # unit [x, y, z]; None for a fixed or ball joint given none
               "limits"}]}       # {"lower", "upper", "effort", "velocity"} in SI (effort, velocity may be None), or None
Everything is deterministic: the same request writes the same bytes.
"""
import math
import os
import struct

import cadquery as cq
import numpy as np
from OCP.BRepGProp import BRepGProp
from OCP.GProp import GProp_GProps

from . import formats
from .assembly import placement
from .failures import cadquery_step, refusal

MM = 1e-3  # metres per millimetre

# Mesh fineness of the links' STL files, as cadquery.export_geometry's
# defaults: at most 0.1 mm off the true surface, 0.1 rad between facets.
MESH_TOLERANCE_MM = 0.1
MESH_ANGULAR_TOLERANCE = 0.1


def build_model(req, out_dir):
    """The robot model of req, writing each link's mesh into out_dir. A
    failure removes the meshes already written."""
    written = []
    try:
        return _build(req, out_dir, written)
    except BaseException:
        remove(written)
        raise


def remove(paths):
    for path in paths:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def _build(req, out_dir, written):
    joint_of = {j["child"]: j for j in req["joints"]}
    origins_mm = {}
    loaded = {}
    links = []
    for part in req["parts"]:
        name = part["name"]
        joint = joint_of.get(name)
        origin = joint["origin_mm"] if joint else [0.0, 0.0, 0.0]
        origins_mm[name] = origin
        if part["file"] not in loaded:
            loaded[part["file"]] = formats.load(part["file"])
        with cadquery_step("placing part %s" % name):
            shape = loaded[part["file"]].moved(placement(part)).translate(cq.Vector(-origin[0], -origin[1], -origin[2]))
        link = _mass_properties(name, shape, part["density_kg_m3"])
        link["material"] = part["material"]
        link["origin_m"] = [c * MM for c in origin]
        mesh = os.path.join(out_dir, name + ".stl")
        written.append(mesh)
        write_stl_metres(shape, mesh, "MetaForge link %s, metres, link frame" % name)
        link["mesh_file"], link["mesh_name"] = mesh, os.path.basename(mesh)
        links.append(link)

    joints = []
    for j in req["joints"]:
        parent, child = origins_mm[j["parent"]], origins_mm[j["child"]]
        joints.append({
            "name": j["name"], "type": j["type"], "kind": j["kind"], "parent": j["parent"], "child": j["child"],
            "origin_m": [(c - p) * MM for c, p in zip(child, parent)],
            "axis": list(j["axis"]) if j["axis"] is not None else None,
            "limits": dict(j["limits"]) if j["limits"] is not None else None,
        })
    return {"robot_name": req["robot_name"], "links": links, "joints": joints}


def _mass_properties(name, shape, density):
    """Mass, centre of mass and inertia about it of shape (mm, in its link
    frame) at density (kg/m^3), in SI. OpenCASCADE's matrix of inertia is
    already the tensor about the centre of mass, with the products of
    inertia negated (Ixy = -integral(x y dV)), as URDF's ixy is."""
    props = GProp_GProps()
    with cadquery_step("measuring part %s" % name):
        BRepGProp.VolumeProperties_s(shape.wrapped, props)
    volume = props.Mass()
    if not volume > 0:
        raise refusal("part %s holds no closed solid (its volume is %g mm^3), so it has no mass; "
                      "give a STEP or BREP file of a closed solid" % (name, volume))
    com = props.CentreOfMass()
    tensor = props.MatrixOfInertia()
    # mm^5 at unit density -> kg m^2: density (kg/m^3) x 1e-15 (m^5 per mm^5).
    inertia = np.array([[tensor.Value(i, j) for j in (1, 2, 3)] for i in (1, 2, 3)]) * density * 1e-15
    inertia = (inertia + inertia.T) / 2  # exactly symmetric
    moments, axes = principal(inertia)
    return {
        "name": name,
        "density_kg_m3": density,
        "volume_mm3": volume,
        "mass_kg": density * volume * 1e-9,
        "com_m": [com.X() * MM, com.Y() * MM, com.Z() * MM],
        "inertia_kg_m2": inertia.tolist(),
        "principal_moments_kg_m2": moments,
        "principal_axes_quat_wxyz": axes,
    }


def principal(inertia):
    """The principal moments (ascending) of a symmetric inertia tensor and
    the rotation taking the link axes to the principal axes, as a unit
    quaternion [w, x, y, z]: inertia = R diag(moments) R^T. Each axis is
    signed so its largest component is positive, then the last flipped if
    need be to make R a rotation, so the answer does not depend on the
    eigen solver's choice of signs."""
    moments, vectors = np.linalg.eigh(inertia)
    for k in range(3):
        v = vectors[:, k]
        if v[np.argmax(np.abs(v))] < 0:
            vectors[:, k] = -v
    if np.linalg.det(vectors) < 0:
        vectors[:, 2] = -vectors[:, 2]
    return [float(m) for m in moments], quaternion(vectors)


def quaternion(r):
    """Unit quaternion [w, x, y, z] of rotation matrix r, w >= 0."""
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0:
        s = 2 * math.sqrt(1 + trace)
        q = [s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = 2 * math.sqrt(1 + r[0, 0] - r[1, 1] - r[2, 2])
        q = [(r[2, 1] - r[1, 2]) / s, s / 4, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s]
    elif r[1, 1] > r[2, 2]:
        s = 2 * math.sqrt(1 + r[1, 1] - r[0, 0] - r[2, 2])
        q = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, s / 4, (r[1, 2] + r[2, 1]) / s]
    else:
        s = 2 * math.sqrt(1 + r[2, 2] - r[0, 0] - r[1, 1])
        q = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, s / 4]
    n = math.sqrt(sum(c * c for c in q))
    q = [float(c / n) for c in q]
    return q if q[0] >= 0 else [-c for c in q]


def write_stl_metres(shape, path, header):
    """shape (mm) as a binary STL in metres: triangles from CadQuery's
    tessellation, each with its unit normal, the header naming what it is."""
    with cadquery_step("meshing %s" % os.path.basename(path)):
        vertices, triangles = shape.tessellate(MESH_TOLERANCE_MM, MESH_ANGULAR_TOLERANCE)
    if not triangles:
        raise refusal("the part has no faces to mesh, so %s cannot be written" % path)
    points = np.array([[v.x, v.y, v.z] for v in vertices], dtype=np.float64) * MM
    tri = np.array(triangles, dtype=np.int64)
    a, b, c = points[tri[:, 0]], points[tri[:, 1]], points[tri[:, 2]]
    normals = np.cross(b - a, c - a)
    lengths = np.linalg.norm(normals, axis=1)
    lengths[lengths == 0] = 1
    normals = normals / lengths[:, None]
    record = np.zeros(len(tri), dtype=[("n", "<f4", 3), ("a", "<f4", 3), ("b", "<f4", 3), ("c", "<f4", 3), ("attr", "<u2")])
    record["n"], record["a"], record["b"], record["c"] = normals, a, b, c
    with cadquery_step("writing %s" % path):
        with open(path, "wb") as f:
            f.write(header.encode("ascii", "replace")[:80].ljust(80, b" "))
            f.write(struct.pack("<I", len(tri)))
            f.write(record.tobytes())
