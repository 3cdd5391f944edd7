"""A robot's base pose as the tools report it: the URDF root link's frame
(not PyBullet's base inertial frame, which sits at the centre of mass), xyz
in metres and roll-pitch-yaw in degrees, and how far it has tipped."""
import math

import pybullet as p


def link_frame(body):
    """Position and quaternion (x, y, z, w) of the root link's own frame."""
    com_pos, com_orn = p.getBasePositionAndOrientation(body)
    info = p.getDynamicsInfo(body, -1)
    local_pos, local_orn = info[3], info[4]
    inv_pos, inv_orn = p.invertTransform(local_pos, local_orn)
    return p.multiplyTransforms(com_pos, com_orn, inv_pos, inv_orn)


def report(body):
    pos, orn = link_frame(body)
    return {"xyz_m": list(pos), "rpy_deg": [math.degrees(a) for a in p.getEulerFromQuaternion(orn)],
            "quat_xyzw": list(orn)}


def up_axis(orn):
    """The body's own z axis in the world."""
    m = p.getMatrixFromQuaternion(orn)
    return (m[2], m[5], m[8])


def tilt_deg(start_orn, end_orn):
    """The angle between the body's z axis at the start and at the end: how
    far it has tipped, whatever it turned about the vertical."""
    a, b = up_axis(start_orn), up_axis(end_orn)
    dot = max(-1.0, min(1.0, sum(x * y for x, y in zip(a, b))))
    return math.degrees(math.acos(dot))
