"""physics.run_simulation: a URDF run for a duration, joints driven to
their targets by position control and the rest free, sampled at a steady
rate.

req (checked by the Go side): the World's fields, plus duration_s,
sample_every (steps between samples), joint_targets ({joint: deg or mm}),
default_max_force (N or N m, for a driven joint whose URDF states no
effort).
"""
from . import contacts, pose
from .world import World

# Contact pairs one result lists in all; past it, samples list fewer and
# the result counts the rest.
MAX_CONTACT_ENTRIES = 20000


def run(req):
    world = World(req)
    try:
        return _simulate(world, req)
    finally:
        world.close()


def _simulate(world, req):
    targets = req.get("joint_targets") or {}
    default_force = float(req["default_max_force"])
    driven = {}
    for name, value in targets.items():
        j = world.joints.named(name)
        j.drive_to(value, default_force)
        driven[name] = (value, j.max_force(default_force))
    movable = world.joints.movable()
    steps = int(req["steps"])
    every = int(req["sample_every"])
    times, series, contact_samples = [], {j.name: ([], []) for j in movable}, []
    truncated, listed = 0, 0

    def sample():
        nonlocal truncated, listed
        times.append(world.time)
        for j in movable:
            pos, vel = series[j.name]
            pos.append(j.position())
            vel.append(j.velocity())
        found, left_off = contacts.pairs(world)
        room = max(0, MAX_CONTACT_ENTRIES - listed)
        truncated += left_off + max(0, len(found) - room)
        found = found[:room]
        listed += len(found)
        contact_samples.append({"t_s": world.time, "pairs": found})

    sample()
    for i in range(1, steps + 1):
        world.step()
        if i % every == 0:
            sample()
    joints_out = []
    for j in movable:
        pos, vel = series[j.name]
        entry = {"name": j.name, "type": j.type, "unit": j.unit, "position": pos, "velocity": vel,
                 "final_position": pos[-1], "driven": j.name in driven}
        if j.name in driven:
            entry["target"], entry["max_force"] = driven[j.name]
        joints_out.append(entry)
    return {
        "simulated_s": world.time,
        "steps": world.steps,
        "sample_interval_s": every * world.time_step,
        "sample_count": len(times),
        "times_s": times,
        "joints": joints_out,
        "contacts": contact_samples,
        "contact_pairs_left_off": truncated,
        "final_base_pose": pose.report(world.robot),
        "ground_z_m": world.ground_z,
        "links": [world.link_names[k] for k in sorted(world.link_names)],
    }
