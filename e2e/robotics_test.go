//go:build unix

package e2e

import (
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/mcpserver"
)

// robotLink is a link as the exporters and checkers report it.
type robotLink struct {
	Name        string        `json:"name"`
	MassKg      float64       `json:"mass_kg"`
	InertiaKgM2 [3][3]float64 `json:"inertia_kg_m2"`
}

// robotics is what robotics_client.mjs saw.
type robotics struct {
	Tools []string `json:"tools"`
	URDF  struct {
		OutputFile string      `json:"output_file"`
		Links      []robotLink `json:"links"`
		Joints     []struct {
			Name, Type, Parent, Child string
		} `json:"joints"`
	} `json:"urdf"`
	SDF struct {
		OutputFile string `json:"output_file"`
	} `json:"sdf"`
	World struct {
		Valid  bool `json:"valid"`
		Worlds []struct {
			Name string `json:"name"`
		} `json:"worlds"`
		Models []struct {
			Name  string `json:"name"`
			Links []struct {
				Name    string  `json:"name"`
				MassKg  float64 `json:"mass_kg"`
				Inertia struct {
					IXX, IYY, IZZ float64
				} `json:"inertia_kg_m2"`
			} `json:"links"`
			Joints []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"joints"`
		} `json:"models"`
	} `json:"world"`
	Stage struct {
		RigidBodies []struct {
			Path            string    `json:"path"`
			Mass            *float64  `json:"mass"`
			DiagonalInertia []float64 `json:"diagonal_inertia"`
		} `json:"rigid_bodies"`
		Joints []struct {
			Type string `json:"type"`
		} `json:"joints"`
	} `json:"stage"`
	USDGate struct {
		Passed bool `json:"passed"`
	} `json:"usdGate"`
	Stability struct {
		AtRest  bool     `json:"at_rest"`
		Stable  bool     `json:"stable"`
		Reasons []string `json:"reasons"`
	} `json:"stability"`
	Run struct {
		Joints []struct {
			Name          string  `json:"name"`
			FinalPosition float64 `json:"final_position"`
			Driven        bool    `json:"driven"`
		} `json:"joints"`
	} `json:"run"`
	Launch struct {
		OutputFile   string `json:"output_file"`
		Ran          bool   `json:"ran"`
		NotRunReason string `json:"not_run_reason"`
	} `json:"launch"`
	Imported struct {
		RobotName      string `json:"robot_name"`
		ComponentCount int    `json:"component_count"`
		InterfaceCount int    `json:"interface_count"`
		ItemRef        string `json:"item_ref"`
		NotImported    []struct {
			Kind, Name, Detail string
		} `json:"not_imported"`
	} `json:"imported"`
	Ball      toolError `json:"ball"`
	GazeboRun toolError `json:"gazeboRun"`
	Health    struct {
		UnservedTools []struct {
			ToolID string `json:"tool_id"`
			Reason string `json:"reason"`
		} `json:"unserved_tools"`
	} `json:"health"`
}

// Issue 24 with the TypeScript SDK on the robotics profile: the two-link
// arm (a 200 x 40 x 20 mm aluminium link on a revolute elbow to a
// 150 x 30 x 20 mm one) exported as URDF (passed by check_urdf here), SDF
// (read by libsdformat) and USD (read by usd-core), each link's mass and
// inertia against the box formula; settled and driven in PyBullet; a ROS 2
// launch file that says it was not run; the URDF imported into the twin.
func TestRoboticsThroughMCP(t *testing.T) {
	checkURDF, err := exec.LookPath("check_urdf")
	if err != nil {
		t.Fatal("check_urdf is not installed: apt-get install liburdfdom-tools (deploy/install-solvers.sh does)")
	}
	began := time.Now()
	var o robotics
	runStdioAgent(t, "robotics_client.mjs", freePorts(t, 3), 10*time.Minute, &o, "--profile", "robotics")
	t.Logf("the robotics scenario took %s", time.Since(began).Round(time.Millisecond))

	var profile mcpserver.Profile
	for _, p := range mcpserver.Profiles() {
		if p.Name == "robotics" {
			profile = p
		}
	}
	want := slices.Clone(profile.Tools)
	slices.Sort(want)
	if !slices.Equal(o.Tools, want) {
		t.Errorf("tools/list on the robotics profile = %v, want %v", o.Tools, want)
	}

	// The box formulas: m = rho V; I = m/12 (b^2 + c^2) about the centre.
	const rho = 2700.0
	boxes := map[string][3]float64{"link1": {0.200, 0.040, 0.020}, "link2": {0.150, 0.030, 0.020}}
	mass := func(d [3]float64) float64 { return rho * d[0] * d[1] * d[2] }
	moments := func(d [3]float64) [3]float64 {
		m := mass(d)
		return [3]float64{m / 12 * (d[1]*d[1] + d[2]*d[2]), m / 12 * (d[0]*d[0] + d[2]*d[2]), m / 12 * (d[0]*d[0] + d[1]*d[1])}
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-3*math.Abs(want) {
			t.Errorf("%s = %.9g, want %.9g within 0.1%%", what, got, want)
		}
	}

	// URDF: check_urdf, ROS's own parser, takes it; the links are the boxes.
	out, err := exec.Command(checkURDF, o.URDF.OutputFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "root Link: link1") || !strings.Contains(string(out), "child(1):  link2") {
		t.Errorf("check_urdf %s: %v\n%s", o.URDF.OutputFile, err, out)
	}
	if len(o.URDF.Links) != 2 || len(o.URDF.Joints) != 1 || o.URDF.Joints[0].Type != "revolute" {
		t.Fatalf("urdf = %+v", o.URDF)
	}
	for _, l := range o.URDF.Links {
		d := boxes[l.Name]
		near("URDF "+l.Name+" mass", l.MassKg, mass(d))
		for i, want := range moments(d) {
			near("URDF "+l.Name+" inertia", l.InertiaKgM2[i][i], want)
		}
	}

	// SDF in a world (with its ground plane): libsdformat loads it, with
	// the same links.
	models := map[string]int{}
	for i, m := range o.World.Models {
		models[m.Name] = i
	}
	armAt, hasArm := models["arm"]
	_, hasGround := models["ground_plane"]
	if !o.World.Valid || len(o.World.Worlds) != 1 || o.World.Worlds[0].Name != "bench" || len(o.World.Models) != 2 || !hasArm || !hasGround {
		t.Fatalf("gazebo.validate_world = %+v, want world bench holding arm and ground_plane", o.World)
	}
	model := o.World.Models[armAt]
	if len(model.Links) != 2 || len(model.Joints) != 1 || model.Joints[0].Type != "revolute" {
		t.Errorf("the SDF's model = %+v", model)
	}
	for _, l := range model.Links {
		d := boxes[l.Name]
		near("SDF "+l.Name+" mass", l.MassKg, mass(d))
		m := moments(d)
		near("SDF "+l.Name+" ixx", l.Inertia.IXX, m[0])
		near("SDF "+l.Name+" izz", l.Inertia.IZZ, m[2])
	}

	// USD: usd-core opens it with two rigid bodies and a revolute joint.
	if !o.USDGate.Passed || len(o.Stage.RigidBodies) != 2 || len(o.Stage.Joints) != 1 || o.Stage.Joints[0].Type != "PhysicsRevoluteJoint" {
		t.Fatalf("usd: gate %+v, stage %+v", o.USDGate, o.Stage)
	}
	for _, b := range o.Stage.RigidBodies {
		name := b.Path[strings.LastIndex(b.Path, "/")+1:]
		d, ok := boxes[name]
		if !ok || b.Mass == nil {
			t.Errorf("rigid body %+v is not one of the links, or has no mass", b)
			continue
		}
		near("USD "+name+" mass", *b.Mass, mass(d))
		got := slices.Clone(b.DiagonalInertia)
		wantM := moments(d)
		slices.Sort(got)
		w := wantM[:]
		slices.Sort(w)
		for i := range w {
			near("USD "+name+" principal moment", got[i], w[i])
		}
	}

	// PyBullet: the arm, base fixed and joints held, comes to rest; driven
	// to 45 degrees, the elbow gets there.
	if !o.Stability.Stable || !o.Stability.AtRest {
		t.Errorf("validate_physics_stability = %+v, want the fixed arm at rest and stable", o.Stability)
	}
	if len(o.Run.Joints) != 1 || !o.Run.Joints[0].Driven || math.Abs(o.Run.Joints[0].FinalPosition-45) > 1 {
		t.Errorf("run_simulation joints = %+v, want the elbow driven to 45 +- 1 degrees", o.Run.Joints)
	}

	if o.Launch.Ran || o.Launch.NotRunReason == "" || !strings.HasSuffix(o.Launch.OutputFile, ".py") {
		t.Errorf("generate_ros2_launch = %+v, want a launch file that says it was not run, and why", o.Launch)
	}

	// The twin: two components, one interface, the meshes listed as not
	// imported.
	meshes := 0
	for _, n := range o.Imported.NotImported {
		if n.Kind == "mesh" {
			meshes++
		}
	}
	if o.Imported.RobotName != "arm" || o.Imported.ComponentCount != 2 || o.Imported.InterfaceCount != 1 || meshes != 4 ||
		!strings.HasPrefix(o.Imported.ItemRef, "ARCH-") {
		t.Errorf("twin.import_urdf = %+v, want arm with 2 components, 1 interface and 4 meshes not imported", o.Imported)
	}

	if o.Ball.Error == nil || !strings.Contains(o.Ball.Error.Message, "ball") {
		t.Errorf("a ball joint in a URDF answered %+v, want a refusal naming it", o.Ball.Error)
	}
	if o.GazeboRun.Error == nil || !strings.Contains(o.GazeboRun.Error.Message, "Gazebo") {
		t.Errorf("gazebo.run_simulation answered %+v, want an error saying it is not served and why", o.GazeboRun.Error)
	}
	unserved := map[string]string{}
	for _, u := range o.Health.UnservedTools {
		unserved[u.ToolID] = u.Reason
	}
	if !strings.Contains(unserved["gazebo.run_simulation"], "Gazebo") {
		t.Errorf("health's unserved tools = %v, want gazebo.run_simulation with its reason", unserved)
	}
}
