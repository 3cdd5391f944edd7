"""Reading shapes from STEP and BREP files, and writing them in each format
MetaForge offers. Every writer checks that it wrote something."""
import os

import cadquery as cq
from cadquery.occ_impl.exporters.assembly import exportGLTF
from OCP.BRepBuilderAPI import BRepBuilderAPI_MakeSolid, BRepBuilderAPI_Sewing
from OCP.BRepLib import BRepLib
from OCP.BRepMesh import BRepMesh_IncrementalMesh
from OCP.IFSelect import IFSelect_ReturnStatus
from OCP.StlAPI import StlAPI_Reader, StlAPI_Writer
from OCP.TopAbs import TopAbs_SHELL
from OCP.TopExp import TopExp_Explorer
from OCP.TopoDS import TopoDS, TopoDS_Shape

from .failures import cadquery_step, refusal

BREP_EXTENSIONS = (".brep", ".brp")
STL_EXTENSIONS = (".stl",)

# STL_SEWING_TOLERANCE (mm) joins the triangles of an STL whose shared
# corners were written as the same numbers: well below any feature, well
# above float rounding.
STL_SEWING_TOLERANCE = 1e-6


def load(path):
    """The shape in a STEP or BREP file (by extension), as one shape: a
    compound when the file holds several."""
    with cadquery_step("reading %s" % path):
        if os.path.splitext(path)[1].lower() in BREP_EXTENSIONS:
            return cq.Shape.importBrep(path)
        shapes = cq.importers.importStep(path).vals()
    if not shapes:
        raise refusal("%s holds no shapes" % path)
    return shapes[0] if len(shapes) == 1 else cq.Compound.makeCompound(shapes)


def load_measurable(path):
    """The shape in a STEP, BREP or STL file. An STL's triangles are sewn
    into closed shells and each shell made a solid, oriented outward, so
    it has mass properties as a B-rep does; an STL that does not close
    (free edges after sewing) is refused, since it encloses no volume."""
    if os.path.splitext(path)[1].lower() not in STL_EXTENSIONS:
        return load(path)
    with cadquery_step("reading the STL %s" % path):
        faces = TopoDS_Shape()
        if not StlAPI_Reader().Read(faces, path) or faces.IsNull():
            raise refusal("%s is not an STL file OpenCASCADE can read" % path)
    with cadquery_step("sewing the triangles of %s" % path):
        sewing = BRepBuilderAPI_Sewing(STL_SEWING_TOLERANCE)
        sewing.Add(faces)
        sewing.Perform()
        free = sewing.NbFreeEdges()
        if free:
            raise refusal("%s is an open mesh: %d triangle edges belong to one triangle only, so it encloses no volume; "
                          "give a closed (watertight) STL, or the part's STEP" % (path, free))
        solids = []
        shells = TopExp_Explorer(sewing.SewedShape(), TopAbs_SHELL)
        while shells.More():
            solid = BRepBuilderAPI_MakeSolid(TopoDS.Shell_s(shells.Current())).Solid()
            BRepLib.OrientClosedSolid_s(solid)
            solids.append(cq.Solid(solid))
            shells.Next()
    if not solids:
        raise refusal("%s holds no triangles" % path)
    return solids[0] if len(solids) == 1 else cq.Compound.makeCompound(solids)


def save_step(shape, path):
    with cadquery_step("writing %s" % path):
        status = shape.exportStep(path)
    if status != IFSelect_ReturnStatus.IFSelect_RetDone:
        raise refusal("OpenCASCADE could not write %s (%s)" % (path, status))
    _check_written(path, "STEP")


def export(shape, fmt, path, tolerance, angular_tolerance):
    """Writes shape to path as fmt. tolerance (mm) and angular_tolerance
    (radians) bound the deviation of a mesh format's triangles."""
    with cadquery_step("writing %s as %s" % (path, fmt.upper())):
        _WRITERS[fmt](shape, path, tolerance, angular_tolerance)
    _check_written(path, fmt.upper())


def _step(shape, path, tolerance, angular_tolerance):
    save_step(shape, path)


def _brep(shape, path, tolerance, angular_tolerance):
    shape.exportBrep(path)


def _mesh(shape, tolerance, angular_tolerance):
    BRepMesh_IncrementalMesh(shape.wrapped, tolerance, False, angular_tolerance, True)


def _stl(shape, path, tolerance, angular_tolerance):
    _mesh(shape, tolerance, angular_tolerance)
    writer = StlAPI_Writer()
    writer.ASCIIMode = False
    if not writer.Write(shape.wrapped, path):
        raise refusal("OpenCASCADE could not write %s: the shape has no faces to mesh" % path)


def _obj(shape, path, tolerance, angular_tolerance):
    vertices, triangles = shape.tessellate(tolerance, angular_tolerance)
    if not triangles:
        raise refusal("the shape has no faces to mesh, so there is no OBJ to write")
    with open(path, "w", encoding="ascii") as f:
        f.write("# Wavefront OBJ written by MetaForge's CadQuery adapter; units: mm\n")
        f.write("o %s\n" % os.path.splitext(os.path.basename(path))[0])
        for v in vertices:
            f.write("v %.9g %.9g %.9g\n" % (v.x, v.y, v.z))
        for a, b, c in triangles:
            f.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


def _glb(shape, path, tolerance, angular_tolerance):
    assembly = cq.Assembly(shape, name=os.path.splitext(os.path.basename(path))[0] or "part")
    if not exportGLTF(assembly, path, binary=True, tolerance=tolerance, angularTolerance=angular_tolerance):
        raise refusal("OpenCASCADE could not write %s" % path)


def _amf(shape, path, tolerance, angular_tolerance):
    cq.exporters.export(shape, path, "AMF", tolerance, angular_tolerance)


def _svg(shape, path, tolerance, angular_tolerance):
    cq.exporters.export(shape, path, "SVG")


_WRITERS = {"step": _step, "brep": _brep, "stl": _stl, "obj": _obj, "glb": _glb, "amf": _amf, "svg": _svg}


def _check_written(path, what):
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        raise refusal("CadQuery wrote no %s data to %s" % (what, path))
