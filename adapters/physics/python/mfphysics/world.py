"""The world a robot is simulated in: headless, deterministic, and free of
what PyBullet adds by default that a URDF does not say.

Headless: PyBullet in DIRECT mode (no window, no server). Deterministic: a
fixed time step with no substeps, overlapping pairs kept in a fixed order,
nothing random; the same request gives the same numbers. What PyBullet
adds by itself and this world takes away:
- its default linear and angular damping of every link (0.04 each), which
  no URDF declares and which bleeds energy out of a swinging joint; a
  joint's own <dynamics damping> in the URDF is kept;
- the velocity motor it puts on every movable joint, which holds the joint
  still unless switched off (force 0);
- inertia recomputed from the collision shapes: the URDF's <inertial> is
  used as written (URDF_USE_INERTIA_FROM_FILE).
"""
import os
import re
import tempfile

import pybullet as p
import pybullet_data

from . import joints as joint_table

GROUND_NAME = "ground"


class Refusal(Exception):
    """A model or request the simulation cannot take; the message says what
    to fix."""


class World:
    """One robot loaded from a URDF, and optionally a ground plane.

    req carries: urdf_file (absolute), time_step_s, gravity ([x, y, z]
    m/s^2), fixed_base, self_collision, ground (bool), ground_z_m (a
    height, or None to put the ground just under the robot's lowest point
    as it starts), initial_positions ({joint: value in deg or mm}).
    """

    def __init__(self, req):
        self.time_step = float(req["time_step_s"])
        p.connect(p.DIRECT)
        p.resetSimulation()
        p.setPhysicsEngineParameter(fixedTimeStep=self.time_step, numSubSteps=0, deterministicOverlappingPairs=1)
        p.setGravity(*req["gravity"])
        flags = p.URDF_USE_INERTIA_FROM_FILE
        if req.get("self_collision"):
            flags |= p.URDF_USE_SELF_COLLISION | p.URDF_USE_SELF_COLLISION_EXCLUDE_PARENT
        self.fixed_base = bool(req["fixed_base"])
        self.robot = _load(req["urdf_file"], self.fixed_base, flags)
        for link in range(-1, p.getNumJoints(self.robot)):
            p.changeDynamics(self.robot, link, linearDamping=0, angularDamping=0)
        self.joints = joint_table.read(self.robot)
        for j in self.joints.movable():
            j.free()
        for name, value in (req.get("initial_positions") or {}).items():
            self.joints.named(name).reset(value)
        self.link_names = {-1: p.getBodyInfo(self.robot)[0].decode()}
        for j in self.joints.all:
            self.link_names[j.index] = j.child_link
        self.ground = None
        self.ground_z = None
        if req.get("ground", True):
            self._place_ground(req.get("ground_z_m"))
        self.steps = 0

    def _place_ground(self, z):
        """Loads pybullet_data's plane (a 200 m square slab whose top is its
        z) at z, or, when z is None, so that its top touches the robot's
        lowest point: the distance from a plane put safely below is
        measured on the collision shapes and the plane raised by it."""
        plane = os.path.join(pybullet_data.getDataPath(), "plane.urdf")
        if z is None:
            lowest = min(p.getAABB(self.robot, link)[0][2] for link in self.link_names)
            below = lowest - 0.1
            self.ground = p.loadURDF(plane, [0, 0, below], useFixedBase=True)
            gaps = [cp[8] for cp in p.getClosestPoints(self.robot, self.ground, 1.0)]
            if not gaps:
                raise Refusal("the robot has no collision geometry to stand on the ground with; add <collision> "
                              "elements to its links, or turn the ground off")
            z = below + min(gaps)
            p.resetBasePositionAndOrientation(self.ground, [0, 0, z], [0, 0, 0, 1])
        else:
            self.ground = p.loadURDF(plane, [0, 0, z], useFixedBase=True)
        self.ground_z = z

    def name_of(self, body, link):
        """The name a contact report gives a link: the robot's link name,
        or "ground"."""
        if body == self.ground:
            return GROUND_NAME
        return self.link_names[link]

    def step(self):
        p.stepSimulation()
        self.steps += 1

    @property
    def time(self):
        return self.steps * self.time_step

    def close(self):
        p.disconnect()


def _load(path, fixed_base, flags):
    """Loads the URDF at the origin; a URDF PyBullet refuses is a Refusal
    carrying what PyBullet printed about it (on the C level's stdout,
    caught here)."""
    with _captured_stdout() as said:
        try:
            return p.loadURDF(path, [0, 0, 0], [0, 0, 0, 1], useFixedBase=fixed_base, flags=flags)
        except p.error as e:
            failure = str(e)
    # PyBullet tags each message with a header ("b3Error[file,line]:"),
    # before it or run on after it; the message is what is left.
    text = re.sub(r"b3\w+\[[^\]]*\]:?", "\n", said())
    detail = " ".join(ln.strip() for ln in text.splitlines() if ln.strip())[-600:]
    raise Refusal("PyBullet cannot load %s: %s; check the file with check_urdf and that every mesh it names is beside it"
                  % (path, detail or failure))


class _captured_stdout:
    """Sends file descriptor 1 to a temporary file for the duration, so what
    PyBullet's C++ prints can be read back."""

    def __enter__(self):
        import sys
        sys.stdout.flush()
        self._file = tempfile.TemporaryFile(mode="w+b")
        self._saved = os.dup(1)
        os.dup2(self._file.fileno(), 1)
        return self._read

    def _read(self):
        self._file.seek(0)
        return self._file.read().decode("utf-8", "replace")

    def __exit__(self, *exc):
        os.dup2(self._saved, 1)
        os.close(self._saved)
        return False
