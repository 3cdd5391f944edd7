package main

import (
	"slices"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/gazebo"
)

// noIsaacSim is why the Isaac Sim tools are not served: the spec's
// isaac_sim adapter dispatches jobs to NVIDIA's container, which nothing
// here can run.
const noIsaacSim = "NVIDIA Isaac Sim runs only as the nvcr.io/nvidia/isaac-sim container, which needs an NVIDIA RTX GPU " +
	"and an NGC account to pull; neither is reachable from this deployment, so there is no adapter for it"

// unservedTools are the spec's tools this build does not serve, with the
// reason, for health to list: the gazebo adapter's own, and Isaac Sim's,
// which has no adapter to hold them.
func unservedTools() []adapters.UnservedTool {
	return append(slices.Clone(gazebo.Unserved),
		adapters.UnservedTool{ToolID: "isaac_sim.run_physics", Reason: noIsaacSim + "; physics.run_simulation (PyBullet) simulates a URDF headless on the CPU"},
		adapters.UnservedTool{ToolID: "isaac_sim.render_scene", Reason: noIsaacSim},
	)
}
