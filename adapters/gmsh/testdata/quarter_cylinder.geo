// Regenerates quarter_cylinder.step, a quarter of a cylinder of radius
// 10 mm and height 10 mm about the z axis, in the x > 0, y > 0 quadrant: its
// curved face's outward mean normal is (1, 1, 0)/sqrt(2) and its area
// pi/2 * 10 * 10. Run: gmsh quarter_cylinder.geo -parse_and_exit
SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, 10, 10, Pi/2};
Save "quarter_cylinder.step";
