"""The minimum a USD stage needs before it is sent to a simulator: it
opens, it names a default prim (what a reference to the file brings in),
it has meshes to simulate, and it says its scale and up axis instead of
leaving USD's fallbacks (centimetres, Y up) to be guessed. Joints, when
there are any, must join rigid bodies that exist. And usd-core's own
validators (UsdValidation) of attribute types and of the UsdPhysics
schemas (rigid bodies, colliders, joints, articulations) report no error.

A failed check is an answer (passed false, with what failed and why), not
an error: the gate's job is to say no.
"""
from pxr import Usd, UsdPhysics

from . import stage as stages
from .failures import Refusal


def validate(args):
    path = args["file"]
    try:
        stage = stages.open_stage(path)
    except Refusal as e:
        checks = [_check("opens", False, str(e))]
        return {"file": path, "passed": False, "checks": checks, "summary": None}
    s = stages.summary(stage)
    checks = [_check("opens", True, "usd-core %s opened it" % ".".join(map(str, Usd.GetVersion())))]
    errors = stage.GetCompositionErrors()
    checks.append(_check("composition", not errors,
                         "no composition errors" if not errors else
                         "%d composition errors, first: %s" % (len(errors), errors[0].GetErrorAsString())))
    if s["default_prim"]:
        checks.append(_check("default_prim", True, "defaultPrim is %s" % s["default_prim"]))
    elif s["default_prim_named"]:
        checks.append(_check("default_prim", False, "defaultPrim names %r, which is not a prim on the stage" % s["default_prim_named"]))
    else:
        checks.append(_check("default_prim", False, "the root layer sets no defaultPrim; a reference to this file would bring in nothing"))
    need = args["min_meshes"]
    checks.append(_check("mesh_count", s["mesh_count"] >= need,
                         "%d UsdGeom.Mesh prims, at least %d needed" % (s["mesh_count"], need)))
    if args["require_meters"]:
        mpu = s["meters_per_unit"]
        if not s["meters_per_unit_authored"]:
            checks.append(_check("meters_per_unit", False, "metersPerUnit is not authored: USD would assume %g (centimetres)" % mpu))
        else:
            checks.append(_check("meters_per_unit", mpu > 0, "metersPerUnit is %g" % mpu))
    if args["require_up_axis"]:
        checks.append(_check("up_axis", s["up_axis_authored"],
                             "upAxis is %s" % s["up_axis"] if s["up_axis_authored"] else
                             "upAxis is not authored: USD would assume %s" % s["up_axis"]))
    if s["joint_count"]:
        checks.append(_joint_bodies(stage))
    checks.append(_validators(stage))
    return {"file": path, "passed": all(c["passed"] for c in checks), "checks": checks, "summary": s}


def _joint_bodies(stage):
    """Every joint's body0/body1 target, where set, is a prim with
    PhysicsRigidBodyAPI (an unset one is the world)."""
    bad = []
    for prim in stage.Traverse():
        if not prim.IsA(UsdPhysics.Joint):
            continue
        joint = UsdPhysics.Joint(prim)
        for label, rel in (("body0", joint.GetBody0Rel()), ("body1", joint.GetBody1Rel())):
            for target in rel.GetTargets():
                body = stage.GetPrimAtPath(target)
                if not body:
                    bad.append("%s.%s names %s, which does not exist" % (prim.GetPath(), label, target))
                elif not body.HasAPI(UsdPhysics.RigidBodyAPI) and not body.HasAPI(UsdPhysics.CollisionAPI):
                    bad.append("%s.%s names %s, which is neither a rigid body nor a collider" % (prim.GetPath(), label, target))
    if bad:
        return _check("joint_bodies", False, "; ".join(bad[:5]) + ("; ..." if len(bad) > 5 else ""))
    return _check("joint_bodies", True, "every joint joins rigid bodies on the stage")


# usd-core's validators the gate runs: attribute values of the type their
# schema declares, and UsdPhysics's own checks. The units and the default
# prim are checked above, where require_meters and require_up_axis apply.
VALIDATORS = (
    "usdValidation:AttributeTypeMismatch",
    "usdPhysicsValidators:RigidBodyChecker",
    "usdPhysicsValidators:ColliderChecker",
    "usdPhysicsValidators:PhysicsJointChecker",
    "usdPhysicsValidators:ArticulationChecker",
)


def _validators(stage):
    """usd-core's UsdValidation run with VALIDATORS: failed by any error,
    warnings listed in the detail."""
    try:
        from pxr import UsdValidation
    except ImportError:
        return _check("usd_validation", False, "this usd-core (%s) has no UsdValidation (usd-core 24.11 or later has it)"
                      % ".".join(map(str, Usd.GetVersion())))
    registry = UsdValidation.ValidationRegistry()
    names = [n for n in VALIDATORS if registry.HasValidator(n)]
    missing = [n for n in VALIDATORS if n not in names]
    found = UsdValidation.ValidationContext(registry.GetOrLoadValidatorsByName(names)).Validate(stage)
    errors = [e for e in found if e.GetType() == UsdValidation.ValidationErrorType.Error]
    others = [e for e in found if e.GetType() != UsdValidation.ValidationErrorType.Error]
    said = ["%s %s: %s" % (e.GetValidator().GetMetadata().name if e.GetValidator() else "usd-core", e.GetName(), e.GetMessage())
            for e in errors + others]
    detail = "%d validators ran (%s): %d errors, %d warnings" % (len(names), ", ".join(names), len(errors), len(others))
    if said:
        detail += "; " + "; ".join(said[:5]) + ("; ..." if len(said) > 5 else "")
    if missing:
        detail += "; not in this usd-core: " + ", ".join(missing)
    return _check("usd_validation", not errors and not missing, detail)


def _check(name, passed, detail):
    return {"name": name, "passed": bool(passed), "detail": detail}
