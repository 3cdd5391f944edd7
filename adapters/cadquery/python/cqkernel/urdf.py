"""Writing a robot model (robot.build_model's dict) as URDF: each link with
its <inertial> (mass, centre of mass, the full inertia tensor about it)
and its mesh as visual and collision geometry; each joint with its origin,
axis and limits, typed as robot_args.go's jointKind said ("kind").

The text is written by hand, not through an XML library, so the same model
gives the same bytes and the attribute order is URDF's usual one.
"""
from xml.sax.saxutils import quoteattr

XACRO_NAMESPACE = "http://www.ros.org/wiki/xacro"


def write(model, path, xacro=False):
    """Writes model to path. xacro declares the xacro namespace on <robot>,
    so the file can be included in a macro-based description."""
    lines = ['<?xml version="1.0"?>',
             "<!-- Written by MetaForge's CadQuery adapter from the parts' B-rep: masses are volume x density, "
             "inertia tensors are about each link's centre of mass. -->"]
    namespace = " xmlns:xacro=%s" % quoteattr(XACRO_NAMESPACE) if xacro else ""
    lines.append("<robot name=%s%s>" % (quoteattr(model["robot_name"]), namespace))
    for link in model["links"]:
        lines.extend(_link(link))
    for joint in model["joints"]:
        lines.extend(_joint(joint))
    lines.append("</robot>")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def _link(link):
    i = link["inertia_kg_m2"]
    mesh = '<mesh filename=%s/>' % quoteattr(link["mesh_name"])
    return [
        "  <link name=%s>" % quoteattr(link["name"]),
        "    <inertial>",
        '      <origin xyz="%s" rpy="0 0 0"/>' % vector(link["com_m"]),
        '      <mass value="%s"/>' % number(link["mass_kg"]),
        '      <inertia ixx="%s" ixy="%s" ixz="%s" iyy="%s" iyz="%s" izz="%s"/>' % tuple(
            number(v) for v in (i[0][0], i[0][1], i[0][2], i[1][1], i[1][2], i[2][2])),
        "    </inertial>",
        "    <visual>",
        '      <origin xyz="0 0 0" rpy="0 0 0"/>',
        "      <geometry>%s</geometry>" % mesh,
        "    </visual>",
        "    <collision>",
        '      <origin xyz="0 0 0" rpy="0 0 0"/>',
        "      <geometry>%s</geometry>" % mesh,
        "    </collision>",
        "  </link>",
    ]


def _joint(joint):
    out = [
        "  <joint name=%s type=%s>" % (quoteattr(joint["name"]), quoteattr(joint["kind"])),
        "    <parent link=%s/>" % quoteattr(joint["parent"]),
        "    <child link=%s/>" % quoteattr(joint["child"]),
        '    <origin xyz="%s" rpy="0 0 0"/>' % vector(joint["origin_m"]),
    ]
    if joint["kind"] != "fixed":
        out.append('    <axis xyz="%s"/>' % vector(joint["axis"]))
    limits = joint["limits"]
    if joint["kind"] in ("revolute", "prismatic"):
        out.append('    <limit lower="%s" upper="%s" effort="%s" velocity="%s"/>' % tuple(
            number(limits[k]) for k in ("lower", "upper", "effort", "velocity")))
    out.append("  </joint>")
    return out


def number(v):
    """The shortest text that reads back as the same double."""
    v = float(v)
    if v == 0:
        return "0"
    text = repr(v)
    return text[:-2] if text.endswith(".0") else text


def vector(v):
    return " ".join(number(c) for c in v)
