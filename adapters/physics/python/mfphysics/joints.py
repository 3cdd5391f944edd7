"""The robot's joints as the tools speak of them: by name, revolute angles
in degrees and prismatic travel in millimetres (PyBullet's radians and
metres stay inside), each with its motor.

A URDF "continuous" joint is PyBullet's revolute joint with no limits
(lower > upper); it is reported as "continuous".
"""
import math

import pybullet as p

TYPES = {p.JOINT_REVOLUTE: "revolute", p.JOINT_PRISMATIC: "prismatic", p.JOINT_FIXED: "fixed",
         p.JOINT_SPHERICAL: "spherical", p.JOINT_PLANAR: "planar"}


class Joint:
    def __init__(self, body, info):
        self.body = body
        self.index = info[0]
        self.name = info[1].decode()
        kind = TYPES.get(info[2], "type %d" % info[2])
        self.lower, self.upper = info[8], info[9]
        if kind == "revolute" and self.lower > self.upper:
            kind = "continuous"
        self.type = kind
        self.effort = info[10]   # N m or N, 0 when the URDF gives none
        self.max_velocity = info[11]  # rad/s or m/s, 0 when the URDF gives none
        self.child_link = info[12].decode()

    @property
    def movable(self):
        return self.type in ("revolute", "continuous", "prismatic")

    @property
    def unit(self):
        return "mm" if self.type == "prismatic" else "deg"

    @property
    def scale(self):
        """Tool units per PyBullet unit."""
        return 1000.0 if self.type == "prismatic" else 180.0 / math.pi

    def position(self):
        return p.getJointState(self.body, self.index)[0] * self.scale

    def velocity(self):
        return p.getJointState(self.body, self.index)[1] * self.scale

    def reset(self, value):
        p.resetJointState(self.body, self.index, value / self.scale, 0.0)

    def free(self):
        """Switches PyBullet's default velocity motor off, so the joint moves
        only as the forces on it say."""
        p.setJointMotorControl2(self.body, self.index, p.VELOCITY_CONTROL, targetVelocity=0, force=0)

    def max_force(self, default):
        """The URDF's limit effort, or default when it gives none."""
        return self.effort if self.effort > 0 else default

    def drive_to(self, value, default_force):
        """PyBullet's position controller toward value (deg or mm), with
        the URDF's effort and velocity limits (default_force when the URDF
        states no effort) and PyBullet's default gains."""
        kw = {}
        if self.max_velocity > 0:
            kw["maxVelocity"] = self.max_velocity
        p.setJointMotorControl2(self.body, self.index, p.POSITION_CONTROL, targetPosition=value / self.scale,
                                targetVelocity=0, force=self.max_force(default_force), **kw)


class Joints:
    def __init__(self, body):
        self.all = [Joint(body, p.getJointInfo(body, i)) for i in range(p.getNumJoints(body))]
        self._by_name = {j.name: j for j in self.all}

    def movable(self):
        return [j for j in self.all if j.movable]

    def named(self, name):
        """The movable joint called name. The Go side has checked the names;
        this only guards against a URDF PyBullet reads differently."""
        j = self._by_name.get(name)
        if j is None or not j.movable:
            from .world import Refusal
            raise Refusal("PyBullet finds no movable joint %r in the URDF; its movable joints are %s"
                          % (name, ", ".join(x.name for x in self.movable()) or "none"))
        return j


def read(body):
    return Joints(body)
