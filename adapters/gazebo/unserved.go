package gazebo

import "github.com/metaforge/metaforge/adapters"

// noGazebo is why the simulator's tools are not served.
const noGazebo = "no Gazebo simulator is installable here: Debian bookworm packages libsdformat but not Gazebo (gz-sim), " +
	"and PyPI has no Gazebo either; gazebo.validate_world checks SDF files with libsdformat instead"

// Unserved are the spec's gazebo.* tools this adapter does not serve:
// they need Gazebo itself, and a stub answering for it would be a fake.
var Unserved = []adapters.UnservedTool{
	{ToolID: "gazebo.run_simulation", Reason: noGazebo + "; simulate a URDF with physics.run_simulation (PyBullet) instead"},
	{ToolID: "gazebo.extract_results", Reason: noGazebo + ", so there are no Gazebo statistics files to read"},
}
