"""cadquery.validate_physics_stability: a URDF left to settle under gravity
on the ground, and a verdict on how it ended.

Joints are held by default (joints_held): each movable joint's position
controller keeps it at its starting position with the URDF's effort (or
default_max_force), as a powered robot standing still does; with
joints_held false they are free, and a fixed-base arm with horizontal
revolute axes swings and is then, rightly, not at rest.

req (checked by the Go side): the World's fields, plus steps,
joints_held, default_max_force, velocity_tolerance_mm_s,
angular_velocity_tolerance_deg_s, penetration_tolerance_mm, max_tilt_deg.

stable is at rest and not tipped; a penetration past its tolerance is
reported (penetration_within_tolerance, and a reason) but is not motion,
so it does not make the robot unstable.
"""
import math

import pybullet as p

from . import contacts, pose
from .world import World


def run(req):
    world = World(req)
    try:
        return _settle(world, req)
    finally:
        world.close()


def _settle(world, req):
    movable = world.joints.movable()
    start = {j.name: j.position() for j in movable}
    if req["joints_held"]:
        for j in movable:
            j.drive_to(start[j.name], float(req["default_max_force"]))
    _, start_orn = pose.link_frame(world.robot)
    start_pose = pose.report(world.robot)
    peak, peak_pairs = 0.0, []
    for _ in range(int(req["steps"])):
        world.step()
        found, _ = contacts.pairs(world)
        depth = contacts.deepest(found)
        if depth > peak:
            peak, peak_pairs = depth, [e for e in found if e["penetration_mm"] > 0]
    final_pairs, _ = contacts.pairs(world)
    _, end_orn = pose.link_frame(world.robot)
    tilt = pose.tilt_deg(start_orn, end_orn)
    linear, angular, fastest = _speeds(world)
    tol_v = float(req["velocity_tolerance_mm_s"])
    tol_w = float(req["angular_velocity_tolerance_deg_s"])
    max_tilt = float(req["max_tilt_deg"])
    at_rest = linear <= tol_v and angular <= tol_w
    reasons = []
    if linear > tol_v:
        reasons.append("link %r still moves at %.3g mm/s at the end (tolerance %g mm/s)" % (fastest[0], linear, tol_v))
    if angular > tol_w:
        reasons.append("link %r still turns at %.3g deg/s at the end (tolerance %g deg/s)" % (fastest[1], angular, tol_w))
    if tilt > max_tilt:
        reasons.append("the base tipped %.3g deg from its start (limit %g deg)" % (tilt, max_tilt))
    final_penetrations = [e for e in final_pairs if e["penetration_mm"] > 0]
    deepest = contacts.deepest(final_penetrations)
    tol_pen = float(req["penetration_tolerance_mm"])
    if deepest > tol_pen:
        worst = max(final_penetrations, key=lambda e: e["penetration_mm"])
        reasons.append("links %r and %r overlap by %.3g mm at the end (tolerance %g mm)"
                       % (worst["link_a"], worst["link_b"], deepest, tol_pen))
    return {
        "at_rest": at_rest,
        "stable": at_rest and tilt <= max_tilt,
        "reasons": reasons,
        "simulated_s": world.time,
        "steps": world.steps,
        "start_base_pose": start_pose,
        "final_base_pose": pose.report(world.robot),
        "tilt_deg": tilt,
        "max_linear_speed_mm_s": linear,
        "max_angular_speed_deg_s": angular,
        "max_penetration_mm": deepest,
        "penetration_within_tolerance": deepest <= tol_pen,
        "penetrations": final_penetrations,
        "peak_penetration_mm": peak,
        "peak_penetrations": peak_pairs,
        "joint_drift": [{"name": j.name, "type": j.type, "unit": j.unit, "start": start[j.name],
                         "end": j.position(), "drift": j.position() - start[j.name]} for j in movable],
        "joints_held": bool(req["joints_held"]),
        "ground_z_m": world.ground_z,
        "contacts": final_pairs,
    }


def _speeds(world):
    """The largest linear speed (mm/s) and angular speed (deg/s) of any of
    the robot's links now, and which links have them."""
    lin, ang = p.getBaseVelocity(world.robot)
    base = world.link_names[-1]
    best_v, best_w = (_norm(lin) * 1000.0, base), (math.degrees(_norm(ang)), base)
    for j in world.joints.all:
        st = p.getLinkState(world.robot, j.index, computeLinkVelocity=1)
        v, w = _norm(st[6]) * 1000.0, math.degrees(_norm(st[7]))
        if v > best_v[0]:
            best_v = (v, j.child_link)
        if w > best_w[0]:
            best_w = (w, j.child_link)
    return best_v[0], best_w[0], (best_v[1], best_w[1])


def _norm(v):
    return math.sqrt(sum(x * x for x in v))
