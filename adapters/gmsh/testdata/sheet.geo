// Regenerates sheet.step, a lone 20 x 10 mm rectangle with no solid, for
// the "file holds no volume" test: gmsh sheet.geo -parse_and_exit
SetFactory("OpenCASCADE");
Rectangle(1) = {0, 0, 0, 20, 10};
Save "sheet.step";
