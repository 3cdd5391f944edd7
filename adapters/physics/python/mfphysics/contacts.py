"""Contact points between the robot and the ground (and between its own
links, with self-collision on), summed by pair of links."""
import pybullet as p

MAX_PAIRS = 100


def pairs(world):
    """The robot's contacts now, one entry per pair of links: the summed
    normal force (N), the number of points and the deepest penetration
    (mm, 0 when the shapes only touch). Largest force first; at most
    MAX_PAIRS, with the count left off."""
    by_pair = {}
    for cp in p.getContactPoints(bodyA=world.robot):
        a = world.name_of(cp[1], cp[3])
        b = world.name_of(cp[2], cp[4])
        if cp[1] == cp[2] and b < a:  # one link pair of the robot, either order
            a, b = b, a
        e = by_pair.setdefault((a, b), {"link_a": a, "link_b": b, "normal_force_n": 0.0, "points": 0,
                                        "penetration_mm": 0.0})
        e["normal_force_n"] += cp[9]
        e["points"] += 1
        e["penetration_mm"] = max(e["penetration_mm"], -cp[8] * 1000.0)
    out = sorted(by_pair.values(), key=lambda e: (-e["normal_force_n"], e["link_a"], e["link_b"]))
    return out[:MAX_PAIRS], max(0, len(out) - MAX_PAIRS)


def deepest(entries):
    """The deepest penetration among pairs (mm), 0 without any."""
    return max((e["penetration_mm"] for e in entries), default=0.0)
