"""PyBullet simulations of a URDF robot for the physics adapter.

world: the headless, deterministic world a robot is loaded into.
joints: the robot's movable joints, their units and motors.
contacts: contact points summed by pair of links.
pose: a body's pose as the tools report it.
simulate: physics.run_simulation.
stability: cadquery.validate_physics_stability.
tools: the table run.py dispatches on.
"""
