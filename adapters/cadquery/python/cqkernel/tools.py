"""The kernel's tools by tool id. Each takes its arguments as the Go side
resolved and checked them (absolute input paths, output files named in the
call's folder) and returns (data, files written)."""
import os
import shutil
import tempfile
import threading

from . import assembly, formats, measure, robot, script_runner, sdf, shapes, urdf, usd_export
from .failures import cadquery_step

# OpenCASCADE is not safe to drive from two threads at once. A script runs
# in a child process of its own and does not take this lock.
_GEOMETRY = threading.Lock()


def create_parametric(args, call):
    with _GEOMETRY:
        with cadquery_step("building the %s" % args["shape_type"]):
            shape = shapes.build(args["shape_type"], args["parameters"])
        formats.save_step(shape, args["cad_file"])
        return dict(cad_file=args["cad_file"], **measure.summary(shape)), [args["cad_file"]]


_OPERATIONS = {
    "union": lambda a, b: a.fuse(b),
    "subtract": lambda a, b: a.cut(b),
    "intersect": lambda a, b: a.intersect(b),
}


def boolean_operation(args, call):
    op, out = args["operation"], args["output_file"]
    with _GEOMETRY:
        a, b = formats.load(args["file_a"]), formats.load(args["file_b"])
        with cadquery_step("computing the %s" % op):
            result = _OPERATIONS[op](a, b)
        with cadquery_step("merging the faces of the %s" % op):
            result = result.clean()
        formats.save_step(result, out)
        return {"output_file": out, "operation": op, "result_volume": measure.volume(result),
                "result_area": measure.area(result), "bounding_box": measure.bounding_box(result),
                "solid_count": len(result.Solids())}, [out]


def get_properties(args, call):
    with _GEOMETRY:
        return measure.properties(formats.load_measurable(args["file"]), args["file"]), []


def export_geometry(args, call):
    out = args["output_file"]
    with _GEOMETRY:
        shape = formats.load(args["file"])
        formats.export(shape, args["format"], out, args["tolerance"], args["angular_tolerance"])
    return {"output_file": out, "format": args["format"], "file_size_bytes": os.path.getsize(out)}, [out]


def create_assembly(args, call):
    with _GEOMETRY:
        return assembly.build(args["parts"], args["output_file"]), [args["output_file"]]


def export_urdf(args, call):
    """cadquery.export_urdf and export_urdf_assembly: the robot model, its
    meshes and the URDF beside them. A failure leaves none of them."""
    out = args["output_file"]
    with _GEOMETRY:
        model = robot.build_model(args, os.path.dirname(out))
    meshes = [link["mesh_file"] for link in model["links"]]
    try:
        urdf.write(model, out, args["xacro"])
    except BaseException:
        robot.remove(meshes + [out])
        raise
    return {
        "output_file": out,
        "robot_name": model["robot_name"],
        "xacro": args["xacro"],
        "links": [{k: link[k] for k in ("name", "material", "volume_mm3", "mass_kg", "com_m", "inertia_kg_m2", "mesh_file")}
                  for link in model["links"]],
        "joints": [{"name": j["name"], "type": j["kind"], "parent": j["parent"], "child": j["child"]} for j in model["joints"]],
    }, [out] + meshes


def export_usd(args, call):
    """cadquery.export_usd and export_usd_assembly: the robot model, its
    meshes read into the stage, which is the one file left: the links'
    STL files go to a folder of their own, removed once read."""
    out = args["output_file"]
    scratch = tempfile.mkdtemp(prefix=".usd-meshes-", dir=os.path.dirname(out))
    try:
        with _GEOMETRY:
            model = robot.build_model(args, scratch)
        written = usd_export.write(model, out, args["collision_approximation"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return dict(output_file=out, name=model["robot_name"], up_axis="Z", meters_per_unit=1, **written), [out]


def export_sdf(args, call):
    """cadquery.export_sdf and export_sdf_assembly: the robot model, its
    meshes and the SDF model (or world, given world_name) beside them. A
    failure leaves none of them."""
    out = args["output_file"]
    with _GEOMETRY:
        model = robot.build_model(args, os.path.dirname(out))
    meshes = [link["mesh_file"] for link in model["links"]]
    try:
        pose = sdf.write(model, out, args.get("world_name"))
    except BaseException:
        robot.remove(meshes + [out])
        raise
    data = {
        "output_file": out,
        "model_name": model["robot_name"],
        "sdf_version": sdf.SDF_VERSION,
        "links": [{k: link[k] for k in ("name", "material", "volume_mm3", "mass_kg", "com_m", "inertia_kg_m2", "mesh_file")}
                  for link in model["links"]],
        "joints": [{"name": j["name"], "type": j["kind"], "parent": j["parent"], "child": j["child"]} for j in model["joints"]],
    }
    if pose is not None:
        data["world_name"], data["model_pose_m"] = args["world_name"], pose
    return data, [out] + meshes


def execute_script(args, call):
    return script_runner.run(args, call)


HANDLERS = {
    "cadquery.create_parametric": create_parametric,
    "cadquery.boolean_operation": boolean_operation,
    "cadquery.get_properties": get_properties,
    "cadquery.export_geometry": export_geometry,
    "cadquery.execute_script": execute_script,
    "cadquery.create_assembly": create_assembly,
    "cadquery.export_urdf": export_urdf,
    "cadquery.export_urdf_assembly": export_urdf,
    "cadquery.export_usd": export_usd,
    "cadquery.export_usd_assembly": export_usd,
    "cadquery.export_sdf": export_sdf,
    "cadquery.export_sdf_assembly": export_sdf,
}
