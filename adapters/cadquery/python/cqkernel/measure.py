"""What a shape measures, in millimetres: volume, area, centre of mass,
inertia (for unit density) and the bounding box every tool reports."""
from OCP.Bnd import Bnd_Box
from OCP.BRepBndLib import BRepBndLib
from OCP.BRepGProp import BRepGProp
from OCP.GProp import GProp_GProps

from .failures import refusal


def _volume_props(shape):
    props = GProp_GProps()
    BRepGProp.VolumeProperties_s(shape.wrapped, props)
    return props


def volume(shape):
    return _volume_props(shape).Mass()


def area(shape):
    props = GProp_GProps()
    BRepGProp.SurfaceProperties_s(shape.wrapped, props)
    return props.Mass()


def bounding_box(shape):
    """{min, max, size} of the exact (not the tessellated or tolerance-
    padded) box, or None for an empty shape."""
    box = Bnd_Box()
    BRepBndLib.AddOptimal_s(shape.wrapped, box, False, False)
    if box.IsVoid():
        return None
    xmin, ymin, zmin, xmax, ymax, zmax = box.Get()
    return {"min": [xmin, ymin, zmin], "max": [xmax, ymax, zmax],
            "size": [xmax - xmin, ymax - ymin, zmax - zmin]}


def summary(shape):
    """The measures a tool that made a shape reports about it."""
    return {"volume_mm3": volume(shape), "surface_area_mm2": area(shape), "bounding_box": bounding_box(shape)}


def properties(shape, where):
    """Mass properties of a solid for unit density. OpenCASCADE's matrix of
    inertia is the tensor about the centre of mass, off-diagonal entries
    being the negated products of inertia."""
    props = _volume_props(shape)
    vol = props.Mass()
    if vol <= 0:
        raise refusal("%s holds no solid (its volume is %g mm^3), so it has no mass properties; "
                      "give a STEP or BREP file of a closed solid" % (where, vol))
    com = props.CentreOfMass()
    tensor = props.MatrixOfInertia()
    return {
        "volume": vol,
        "area": area(shape),
        "center_of_mass": [com.X(), com.Y(), com.Z()],
        "bounding_box": bounding_box(shape),
        "inertia": [[tensor.Value(i, j) for j in (1, 2, 3)] for i in (1, 2, 3)],
        "solid_count": len(shape.Solids()),
    }
