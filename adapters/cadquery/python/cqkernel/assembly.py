"""Placing parts into an assembly and checking them for interference."""
import cadquery as cq

from . import formats, measure
from .failures import cadquery_step

# Pairs whose common volume is at most this, in mm^3, do not interfere:
# faces that only touch give a common volume of numerical noise.
INTERFERENCE_TOLERANCE_MM3 = 1e-6

# Bounding boxes closer than this overlap (mm), so boxes that merely touch
# skip the boolean.
_BOX_GAP = 1e-9


def placement(part):
    """The part's location: rotated about the global X, then Y, then Z axes
    through its own origin (degrees), then moved by x, y, z (mm)."""
    origin = cq.Vector(0, 0, 0)
    return (cq.Location(cq.Vector(part["x"], part["y"], part["z"]))
            * cq.Location(origin, cq.Vector(0, 0, 1), part["rz"])
            * cq.Location(origin, cq.Vector(0, 1, 0), part["ry"])
            * cq.Location(origin, cq.Vector(1, 0, 0), part["rx"]))


def build(parts, output_file):
    loaded = {}
    names, shapes, locations, placed = [], [], [], []
    for part in parts:
        if part["file"] not in loaded:
            loaded[part["file"]] = formats.load(part["file"])
        shape, location = loaded[part["file"]], placement(part)
        names.append(part["name"])
        shapes.append(shape)
        locations.append(location)
        placed.append(shape.moved(location))

    assembly = cq.Assembly(name="assembly")
    for name, shape, location in zip(names, shapes, locations):
        assembly.add(shape, name=name, loc=location)
    with cadquery_step("writing the assembly to %s" % output_file):
        assembly.export(output_file, "STEP")

    found = interferences(names, placed)
    volumes = [measure.volume(s) for s in placed]
    return {
        "output_file": output_file,
        "part_count": len(parts),
        "volume_mm3": sum(volumes),
        "bounding_box": measure.bounding_box(cq.Compound.makeCompound(placed)),
        "parts": [{"name": n, "volume_mm3": v, "bounding_box": measure.bounding_box(s)}
                  for n, v, s in zip(names, volumes, placed)],
        "interferences": found,
        "interference_check_passed": not found,
    }


def interferences(names, placed):
    """Every pair of placed parts that share volume: bounding boxes first,
    then the boolean common of the two solids."""
    boxes = [measure.bounding_box(s) for s in placed]
    found = []
    for i in range(len(placed)):
        for j in range(i + 1, len(placed)):
            if not _overlap(boxes[i], boxes[j]):
                continue
            with cadquery_step("intersecting parts %s and %s" % (names[i], names[j])):
                shared = measure.volume(placed[i].intersect(placed[j]))
            if shared > INTERFERENCE_TOLERANCE_MM3:
                found.append({"part_a": names[i], "part_b": names[j], "volume_mm3": shared})
    return found


def _overlap(a, b):
    if a is None or b is None:
        return False
    return all(a["min"][k] < b["max"][k] - _BOX_GAP and b["min"][k] < a["max"][k] - _BOX_GAP for k in range(3))
