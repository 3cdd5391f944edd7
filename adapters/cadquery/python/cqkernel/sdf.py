"""Writing a robot model (robot.build_model's dict) as SDFormat 1.9: a
<model> with a link per part (its pose in the model frame, an <inertial>
with its pose at the centre of mass and the full inertia tensor, the mesh
as visual and collision geometry) and a joint per joint (parent, child,
axis and limits, typed as robot_args.go's jointKind said, "kind"); with a
world, the model inside a <world> with gravity, physics and a ground plane.

As urdf.py, the text is written by hand so the same model gives the same
bytes. Poses need no rotation: every link frame has the assembly's axes.
"""
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from .urdf import number, vector

SDF_VERSION = "1.9"

# The world around a model: standard gravity along -Z (the assembly's Z is
# up), a 1 ms physics step at real time, a ground plane at z = 0.
GRAVITY_M_S2 = [0.0, 0.0, -9.80665]
STEP_S = 0.001
GROUND_SIZE_M = 100.0


def write(model, path, world_name=None):
    """Writes model to path: a model file, or with world_name a world
    holding it. Returns the model's pose in the world (m) or None: it is
    raised or lowered so its lowest point rests on the ground plane."""
    lines = ['<?xml version="1.0"?>',
             "<!-- Written by MetaForge's CadQuery adapter from the parts' B-rep: masses are volume x density, "
             "inertia tensors are about each link's centre of mass. -->",
             "<sdf version=%s>" % quoteattr(SDF_VERSION)]
    pose = None
    if world_name is None:
        lines.extend(_model(model, "  ", None))
    else:
        pose = [0.0, 0.0, round(-lowest_z(model), 9)]  # to the nanometre: the mesh is float32
        lines.extend(_world(model, world_name, pose))
    lines.append("</sdf>")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return pose


def _world(model, name, pose):
    plane = "<plane><normal>0 0 1</normal><size>%s %s</size></plane>" % (number(GROUND_SIZE_M), number(GROUND_SIZE_M))
    return [
        "  <world name=%s>" % quoteattr(name),
        "    <gravity>%s</gravity>" % vector(GRAVITY_M_S2),
        '    <physics name="1ms" type="ode">',
        "      <max_step_size>%s</max_step_size>" % number(STEP_S),
        "      <real_time_factor>1</real_time_factor>",
        "    </physics>",
        '    <model name="ground_plane">',
        "      <static>true</static>",
        '      <link name="ground">',
        '        <collision name="collision"><geometry>%s</geometry></collision>' % plane,
        '        <visual name="visual"><geometry>%s</geometry></visual>' % plane,
        "      </link>",
        "    </model>",
    ] + _model(model, "    ", pose) + ["  </world>"]


def _model(model, indent, pose):
    out = [indent + "<model name=%s>" % quoteattr(model["robot_name"])]
    if pose is not None:
        out.append(indent + "  <pose>%s 0 0 0</pose>" % vector(pose))
    for link in model["links"]:
        out.extend(indent + "  " + line for line in _link(link))
    for joint in model["joints"]:
        out.extend(indent + "  " + line for line in _joint(joint))
    out.append(indent + "</model>")
    return out


def _link(link):
    i = link["inertia_kg_m2"]
    mesh = "<mesh><uri>%s</uri></mesh>" % escape(link["mesh_name"])
    return [
        "<link name=%s>" % quoteattr(link["name"]),
        "  <pose>%s 0 0 0</pose>" % vector(link["origin_m"]),
        "  <inertial>",
        "    <pose>%s 0 0 0</pose>" % vector(link["com_m"]),
        "    <mass>%s</mass>" % number(link["mass_kg"]),
        "    <inertia>",
        "      <ixx>%s</ixx><ixy>%s</ixy><ixz>%s</ixz>" % (number(i[0][0]), number(i[0][1]), number(i[0][2])),
        "      <iyy>%s</iyy><iyz>%s</iyz><izz>%s</izz>" % (number(i[1][1]), number(i[1][2]), number(i[2][2])),
        "    </inertia>",
        "  </inertial>",
        '  <visual name="visual"><geometry>%s</geometry></visual>' % mesh,
        '  <collision name="collision"><geometry>%s</geometry></collision>' % mesh,
        "</link>",
    ]


def _joint(joint):
    """The joint frame is the child link's (SDF's default), which sits at
    the joint's origin with the assembly's axes: so no <pose>, and the axis
    is written as given."""
    kind = joint["kind"]
    out = [
        "<joint name=%s type=%s>" % (quoteattr(joint["name"]), quoteattr(kind)),
        "  <parent>%s</parent>" % escape(joint["parent"]),
        "  <child>%s</child>" % escape(joint["child"]),
    ]
    if kind in ("revolute", "continuous", "prismatic"):
        out.append("  <axis>")
        out.append("    <xyz>%s</xyz>" % vector(joint["axis"]))
        limits = joint["limits"]
        if limits is not None:
            out.append("    <limit>")
            out.append("      <lower>%s</lower>" % number(limits["lower"]))
            out.append("      <upper>%s</upper>" % number(limits["upper"]))
            if limits.get("effort") is not None:
                out.append("      <effort>%s</effort>" % number(limits["effort"]))
            if limits.get("velocity") is not None:
                out.append("      <velocity>%s</velocity>" % number(limits["velocity"]))
            out.append("    </limit>")
        out.append("  </axis>")
    out.append("</joint>")
    return out


def lowest_z(model):
    """The lowest z (m, model frame) of any link's mesh: its STL's lowest
    vertex plus the link frame's height."""
    record = np.dtype([("n", "<f4", 3), ("a", "<f4", 3), ("b", "<f4", 3), ("c", "<f4", 3), ("attr", "<u2")])
    lowest = None
    for link in model["links"]:
        with open(link["mesh_file"], "rb") as f:
            data = f.read()
        tri = np.frombuffer(data, dtype=record, offset=84)
        z = float(min(tri["a"][:, 2].min(), tri["b"][:, 2].min(), tri["c"][:, 2].min())) + link["origin_m"][2]
        lowest = z if lowest is None else min(lowest, z)
    return lowest
