package gazebo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// needChecker fails, saying how to build it, when metaforge-sdfcheck is
// not installed: CI builds it, so a missing one is a broken setup, not a
// reason to skip.
func needChecker(t *testing.T) {
	t.Helper()
	if _, err := New(nil, Options{}).checkerPath(); err != nil {
		t.Fatalf("the libsdformat checker is missing: %v", err)
	}
}

// newAdapter is the adapter over a workspace in a temporary folder, and
// the workspace's root, where the test writes its files.
func newAdapter(t *testing.T, opts Options) (*Adapter, string) {
	t.Helper()
	ws := workspace.New(t.TempDir())
	if err := os.MkdirAll(ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	return New(ws, opts), ws.Root
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// validate calls gazebo.validate_world through a registry, so the
// arguments are checked against the input schema as a real call's are,
// and checks the answer against the output schema.
func validate(t *testing.T, a *Adapter, file string) ValidateResult {
	t.Helper()
	res, err := callErr(a, map[string]any{"file": file})
	if err != nil {
		t.Fatalf("validate_world(%s): %v", file, err)
	}
	matchesOutputSchema(t, a, res.Data)
	var out ValidateResult
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func callErr(a *Adapter, args map[string]any) (*adapters.Result, error) {
	raw, _ := json.Marshal(args)
	r := adapters.NewRegistry()
	if err := r.Register(a); err != nil {
		return nil, err
	}
	if err := r.ValidateArguments(ToolValidateWorld, raw); err != nil {
		return nil, err
	}
	return a.Call(context.Background(), ToolValidateWorld, raw)
}

func matchesOutputSchema(t *testing.T, a *Adapter, data []byte) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(a.Manifests()[0].OutputSchema, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var instance any
	if err := json.Unmarshal(data, &instance); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(instance); err != nil {
		t.Fatalf("result does not match the output schema: %v\n%.3000s", err, data)
	}
}

func wantCode(t *testing.T, err error, code protocol.Code, mentions ...string) {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want %s", err, code.Name())
	}
	if pe.Code != code {
		t.Fatalf("code %s (%s), want %s", pe.Code.Name(), pe.Details, code.Name())
	}
	for _, m := range mentions {
		if !strings.Contains(pe.Details, m) {
			t.Fatalf("%s does not say %q: %s", code.Name(), m, pe.Details)
		}
	}
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.12g, want %.12g +- %g", what, got, want, tol)
	}
}

func nearVec(t *testing.T, what string, got []float64, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	for i := range want {
		near(t, what, got[i], want[i], 1e-12)
	}
}

func link(t *testing.T, m Model, name string) Link {
	t.Helper()
	for _, l := range m.Links {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("model %s has no link %s: %+v", m.Name, name, m.Links)
	return Link{}
}

// twoLinks is a model whose numbers the test wrote: link2 sits 0.2 m along
// link1's X axis (relative_to link1, which is raised 0.5 m) turned a
// quarter turn about Z, hinged to it about Z with limits; a ball joint
// hangs a third link from link2.
const twoLinks = `<?xml version="1.0"?>
<sdf version="1.9">
  <model name="arm">
    <link name="link1">
      <pose>0 0 0.5 0 0 0</pose>
      <inertial>
        <pose>0.1 0 0 0 0 0</pose>
        <mass>0.432</mass>
        <inertia><ixx>1.296e-4</ixx><iyy>1.4544e-3</iyy><izz>1.4976e-3</izz><ixy>1e-6</ixy><ixz>-2e-6</ixz><iyz>3e-6</iyz></inertia>
      </inertial>
      <visual name="v"><geometry><box><size>0.2 0.04 0.02</size></box></geometry></visual>
      <collision name="c"><geometry><box><size>0.2 0.04 0.02</size></box></geometry></collision>
    </link>
    <link name="link2">
      <pose relative_to="link1">0.2 0 0 0 0 1.5707963267948966</pose>
      <inertial><mass>0.243</mass><inertia><ixx>3e-5</ixx><iyy>4.6e-4</iyy><izz>4.7e-4</izz></inertia></inertial>
    </link>
    <link name="link3">
      <pose relative_to="link2">0.15 0 0 0 0 0</pose>
      <inertial><mass>0.1</mass><inertia><ixx>1e-5</ixx><iyy>1e-5</iyy><izz>1e-5</izz></inertia></inertial>
    </link>
    <joint name="elbow" type="revolute">
      <parent>link1</parent>
      <child>link2</child>
      <axis><xyz>0 0 1</xyz><limit><lower>-1.5</lower><upper>1.5</upper><effort>10</effort><velocity>2</velocity></limit></axis>
    </joint>
    <joint name="wrist" type="ball">
      <parent>link2</parent>
      <child>link3</child>
    </joint>
  </model>
</sdf>
`

// libsdformat's own model of a file the test wrote: masses, inertia and
// limits as written, and the poses resolved through its frame graph
// (link2 relative to link1; link3 relative to link2, turned a quarter turn,
// so 0.15 m along link2's X is along the model's Y).
func TestValidateModelAsLibsdformatReadsIt(t *testing.T) {
	needChecker(t)
	a, root := newAdapter(t, Options{})
	file := write(t, root, "arm.sdf", twoLinks)
	out := validate(t, a, "arm.sdf") // relative to the workspace root
	if !out.Valid || len(out.Errors) != 0 || out.SDFVersion != "1.9" || out.File != file || !strings.HasPrefix(out.LibraryVersion, "12.") {
		t.Fatalf("result %+v", out)
	}
	if len(out.Worlds) != 0 || len(out.Models) != 1 {
		t.Fatalf("worlds %+v, models %+v", out.Worlds, out.Models)
	}
	m := out.Models[0]
	if m.Name != "arm" || m.World != "" || m.Static || len(m.Links) != 3 || len(m.Joints) != 2 {
		t.Fatalf("model %+v", m)
	}
	l1 := link(t, m, "link1")
	near(t, "link1 mass", l1.MassKg, 0.432, 0)
	want := Inertia{IXX: 1.296e-4, IYY: 1.4544e-3, IZZ: 1.4976e-3, IXY: 1e-6, IXZ: -2e-6, IYZ: 3e-6}
	if l1.Inertia != want {
		t.Errorf("link1 inertia %+v, want %+v", l1.Inertia, want)
	}
	nearVec(t, "link1 inertial pose xyz", l1.InertialPose.XYZ, 0.1, 0, 0)
	if l1.VisualCount != 1 || l1.CollisionCount != 1 {
		t.Errorf("link1 visuals %d collisions %d, want 1 and 1", l1.VisualCount, l1.CollisionCount)
	}
	l2 := link(t, m, "link2")
	if l2.PoseRelativeTo != "link1" || l2.PoseInModel == nil {
		t.Fatalf("link2 %+v", l2)
	}
	nearVec(t, "link2 pose in model xyz", l2.PoseInModel.XYZ, 0.2, 0, 0.5)
	nearVec(t, "link2 pose in model rpy", l2.PoseInModel.RPY, 0, 0, math.Pi/2)
	l3 := link(t, m, "link3")
	nearVec(t, "link3 pose in model xyz", l3.PoseInModel.XYZ, 0.2, 0.15, 0.5)

	elbow, wrist := m.Joints[0], m.Joints[1]
	if elbow.Name != "elbow" || elbow.Type != "revolute" || elbow.Parent != "link1" || elbow.Child != "link2" || elbow.Axis == nil {
		t.Fatalf("elbow %+v", elbow)
	}
	nearVec(t, "elbow axis", elbow.Axis.XYZ, 0, 0, 1)
	nearVec(t, "elbow axis in model", elbow.Axis.XYZInModel, 0, 0, 1)
	if l := elbow.Axis; l.Lower == nil || *l.Lower != -1.5 || l.Upper == nil || *l.Upper != 1.5 || l.Effort == nil || *l.Effort != 10 || l.Velocity == nil || *l.Velocity != 2 {
		t.Errorf("elbow limits %+v", elbow.Axis)
	}
	if wrist.Type != "ball" || wrist.Parent != "link2" || wrist.Child != "link3" || wrist.Axis != nil {
		t.Errorf("wrist %+v", wrist)
	}
}

// A joint whose parent names no link: libsdformat rejects the model, and
// the tool answers that as a result (valid false, libsdformat's error),
// not as a failed call.
func TestBrokenJointIsInvalidWithLibsdformatsError(t *testing.T) {
	needChecker(t)
	a, root := newAdapter(t, Options{})
	broken := strings.Replace(twoLinks, "<parent>link2</parent>", "<parent>forearm</parent>", 1)
	write(t, root, "broken.sdf", broken)
	out := validate(t, a, filepath.Join(root, "broken.sdf"))
	if out.Valid {
		t.Fatalf("a joint whose parent names no link is valid: %+v", out)
	}
	found := false
	for _, e := range out.Errors {
		if e.Code == "JOINT_PARENT_LINK_INVALID" && strings.Contains(e.Message, "forearm") && strings.Contains(e.Message, "wrist") {
			found = true
		}
	}
	if !found {
		t.Fatalf("errors %+v lack libsdformat's JOINT_PARENT_LINK_INVALID naming forearm and wrist", out.Errors)
	}
}

// Text that is not XML: invalid, with libsdformat's FILE_READ and the
// parser's detail of where it stopped.
func TestNotXMLIsInvalidWithTheParsersDetail(t *testing.T) {
	needChecker(t)
	a, root := newAdapter(t, Options{})
	write(t, root, "notes.sdf", "this is not <sdf>\n")
	out := validate(t, a, "notes.sdf")
	if out.Valid || len(out.Errors) == 0 || out.Errors[0].Code != "FILE_READ" {
		t.Fatalf("result %+v", out)
	}
	detail := false
	for _, m := range out.Messages {
		detail = detail || (m.Level == "error" && strings.Contains(m.Text, "Error parsing XML"))
	}
	if !detail {
		t.Errorf("messages %+v lack the XML parser's detail", out.Messages)
	}
}

// A world: its gravity, its models tagged with it, a nested model named
// with its scope, and an element SDF does not define reported as a
// warning without making the world invalid.
func TestValidateWorld(t *testing.T) {
	needChecker(t)
	a, root := newAdapter(t, Options{})
	write(t, root, "lab.world", `<?xml version="1.0"?>
<sdf version="1.9">
  <world name="lab">
    <gravity>0 0 -9.5</gravity>
    <physics name="fast" type="ode"><max_step_size>0.002</max_step_size><real_time_factor>1</real_time_factor></physics>
    <model name="ground_plane">
      <static>true</static>
      <link name="ground"><collision name="c"><geometry><plane><normal>0 0 1</normal><size>10 10</size></plane></geometry></collision></link>
    </model>
    <model name="cart">
      <pose>1 2 0.3 0 0 0</pose>
      <link name="body"><inertial><mass>2</mass></inertial><colour>red</colour></link>
      <model name="wheel"><link name="rim"><inertial><mass>0.5</mass></inertial></link></model>
    </model>
  </world>
</sdf>
`)
	out := validate(t, a, "lab.world")
	if !out.Valid || len(out.Worlds) != 1 {
		t.Fatalf("result %+v", out)
	}
	w := out.Worlds[0]
	if w.Name != "lab" || strings.Join(w.Models, ",") != "ground_plane,cart" {
		t.Fatalf("world %+v", w)
	}
	nearVec(t, "gravity", w.GravityMS2, 0, 0, -9.5)
	var names []string
	for _, m := range out.Models {
		if m.World != "lab" {
			t.Errorf("model %s is not tagged with its world: %q", m.Name, m.World)
		}
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "ground_plane,cart,cart::wheel" {
		t.Fatalf("models %v, want ground_plane, cart, cart::wheel", names)
	}
	if !out.Models[0].Static || out.Models[1].Static {
		t.Errorf("static: ground_plane %v, cart %v", out.Models[0].Static, out.Models[1].Static)
	}
	nearVec(t, "cart pose", out.Models[1].Pose.XYZ, 1, 2, 0.3)
	warned := false
	for _, m := range out.Messages {
		warned = warned || (m.Level == "warning" && strings.Contains(m.Text, "colour"))
	}
	if !warned {
		t.Errorf("messages %+v do not warn of <colour>, which SDF does not define", out.Messages)
	}
}

// Files the tool refuses before running anything, each saying what to
// give instead.
func TestRefusesFilesItCannotCheck(t *testing.T) {
	a, root := newAdapter(t, Options{})
	write(t, root, "arm.urdf", "<robot name='r'/>")
	outside := write(t, t.TempDir(), "elsewhere.sdf", twoLinks)
	for _, c := range []struct {
		file     string
		mentions string
	}{
		{"missing.sdf", "does not exist"},
		{"arm.urdf", ".sdf model or a .world"},
		{outside, "outside"},
	} {
		_, err := callErr(a, map[string]any{"file": c.file})
		wantCode(t, err, protocol.InvalidParams, c.mentions)
	}
	_, err := callErr(a, map[string]any{"file": ""})
	wantCode(t, err, protocol.InvalidParams)
	_, err = callErr(a, map[string]any{"file": "arm.sdf", "world": "x"})
	wantCode(t, err, protocol.InvalidParams)

	if os.Geteuid() != 0 { // root reads any file
		locked := write(t, root, "locked.sdf", twoLinks)
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		_, err := callErr(a, map[string]any{"file": "locked.sdf"})
		wantCode(t, err, protocol.InvalidParams, "cannot be read")
	}
}

// Without the checker, the tool and health say how to build it.
func TestMissingCheckerSaysHowToBuildIt(t *testing.T) {
	missing := filepath.Join(t.TempDir(), CheckerName)
	a, root := newAdapter(t, Options{Checker: missing})
	write(t, root, "arm.sdf", twoLinks)
	_, err := callErr(a, map[string]any{"file": "arm.sdf"})
	wantCode(t, err, protocol.ToolUnavailable, missing, "bash deploy/sdfcheck/build.sh", "libsdformat-dev")
	_, err = a.Health(context.Background())
	wantCode(t, err, protocol.ToolUnavailable, "bash deploy/sdfcheck/build.sh")
}

func TestHealthReportsTheChecker(t *testing.T) {
	needChecker(t)
	a, _ := newAdapter(t, Options{})
	h, err := a.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Status != "healthy" || h.ToolsAvailable != 1 || !strings.Contains(h.Version, "libsdformat 12.") || !strings.Contains(h.Version, "SDF 1.") {
		t.Fatalf("health %+v", h)
	}
}

// The unserved tools are the spec's gazebo tools that need Gazebo itself,
// each with a reason, and none of them is served.
func TestUnservedToolsAreListedNotServed(t *testing.T) {
	a, _ := newAdapter(t, Options{})
	served := map[string]bool{}
	for _, m := range a.Manifests() {
		served[m.ToolID] = true
	}
	want := map[string]bool{"gazebo.run_simulation": true, "gazebo.extract_results": true}
	for _, u := range Unserved {
		if !want[u.ToolID] || served[u.ToolID] || !strings.Contains(u.Reason, "Gazebo") {
			t.Errorf("unserved %+v", u)
		}
		delete(want, u.ToolID)
		_, err := a.Call(context.Background(), u.ToolID, json.RawMessage(`{}`))
		wantCode(t, err, protocol.InvalidParams, "not served")
	}
	if len(want) != 0 {
		t.Errorf("not listed as unserved: %v", want)
	}
	if _, ok := adapters.AnnotationsFor(ToolValidateWorld); !ok {
		t.Errorf("%s is not classified in adapters/annotations.go", ToolValidateWorld)
	}
}

// In the bubblewrap sandbox a worker gives solver runs (host read-only, no
// HOME to log into, the manifest's limits) the checker reads the file and
// answers as it does outside.
func TestValidateInTheSandbox(t *testing.T) {
	needChecker(t)
	sb, err := solver.NewSandbox()
	if err != nil {
		t.Fatalf("this machine has no working sandbox: %v", err)
	}
	a, root := newAdapter(t, Options{})
	write(t, root, "broken.sdf", strings.Replace(twoLinks, "<parent>link2</parent>", "<parent>forearm</parent>", 1))
	write(t, root, "arm.sdf", twoLinks)
	lim := a.Manifests()[0].ResourceLimits
	ctx := solver.WithRuntime(context.Background(), sb, solver.Policy{
		Limits: solver.Limits{MemoryMB: lim.MaxMemoryMB, CPUSeconds: lim.MaxCPUSeconds,
			Processes: solver.DefaultProcesses, FileSizeMB: lim.MaxDiskMB},
		WorkspaceRoot: root,
	})
	for file, valid := range map[string]bool{"arm.sdf": true, "broken.sdf": false} {
		res, err := a.Call(ctx, ToolValidateWorld, json.RawMessage(`{"file":"`+file+`"}`))
		if err != nil {
			t.Fatalf("%s in the sandbox: %v", file, err)
		}
		var out ValidateResult
		if err := json.Unmarshal(res.Data, &out); err != nil {
			t.Fatal(err)
		}
		if out.Valid != valid || len(out.Models) != 1 || len(out.Models[0].Links) != 3 {
			t.Errorf("%s in the sandbox: valid %v (want %v), models %+v, errors %+v", file, out.Valid, valid, out.Models, out.Errors)
		}
	}
}

// A world's <include>s are followed as libsdformat follows them: a model
// folder and a file beside the world are loaded; a model:// URI with no
// model behind it is libsdformat's URI_LOOKUP error (its search paths
// are cleared, so nothing outside is found); an include that leads out of
// the read roots, or climbs with .., is refused before libsdformat opens
// anything.
func TestIncludesAreFollowedInsideTheRootsOnly(t *testing.T) {
	needChecker(t)
	a, root := newAdapter(t, Options{})
	box := `<?xml version="1.0"?>
<sdf version="1.9"><model name="box"><link name="l"><inertial><mass>2</mass></inertial></link></model></sdf>
`
	if err := os.MkdirAll(filepath.Join(root, "models", "box"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "models", "box"), "model.sdf", box)
	write(t, filepath.Join(root, "models", "box"), "model.config", `<?xml version="1.0"?>
<model><name>box</name><sdf version="1.9">model.sdf</sdf></model>
`)
	write(t, root, "crate.sdf", strings.Replace(box, "<mass>2</mass>", "<mass>3</mass>", 1))
	world := func(uris ...string) string {
		var inc strings.Builder
		for i, u := range uris {
			fmt.Fprintf(&inc, "<include><uri>%s</uri><name>m%d</name></include>\n", u, i)
		}
		return `<?xml version="1.0"?>
<sdf version="1.9"><world name="w">
` + inc.String() + `</world></sdf>
`
	}
	t.Setenv("SDF_PATH", filepath.Join(root, "models")) // cleared for the checker: model://box is not found through it

	write(t, root, "inside.world", world("models/box", "crate.sdf"))
	out := validate(t, a, "inside.world")
	if !out.Valid || len(out.Models) != 2 {
		t.Fatalf("result %+v", out)
	}
	for i, mass := range []float64{2, 3} {
		if m := out.Models[i]; m.Name != fmt.Sprintf("m%d", i) || len(m.Links) != 1 || m.Links[0].MassKg != mass {
			t.Errorf("included model %d: %+v, want m%d with one link of %g kg", i, m, i, mass)
		}
	}

	write(t, root, "lookup.world", world("model://box"))
	out = validate(t, a, "lookup.world")
	if out.Valid || len(out.Errors) == 0 || out.Errors[0].Code != "URI_LOOKUP" || !strings.Contains(out.Errors[0].Message, "model://box") {
		t.Errorf("model://box with the search paths cleared: %+v", out)
	}

	elsewhere := t.TempDir()
	write(t, elsewhere, "secret.sdf", box)
	for name, uri := range map[string]string{
		"absolute.world": filepath.Join(elsewhere, "secret.sdf"),
		"file.world":     "file://" + filepath.Join(elsewhere, "secret.sdf"),
		"climbs.world":   "models/../../secret.sdf",
	} {
		write(t, root, name, world("crate.sdf", uri))
		_, err := callErr(a, map[string]any{"file": name})
		want := "leads outside the allowed roots"
		if name == "climbs.world" {
			want = "climbs out of its folder"
		}
		wantCode(t, err, protocol.InvalidParams, uri, want)
	}

	// A file nested through an include is screened too.
	write(t, root, "nested.sdf", world("file://"+filepath.Join(elsewhere, "secret.sdf")))
	write(t, root, "outer.world", world("nested.sdf"))
	_, err := callErr(a, map[string]any{"file": "outer.world"})
	wantCode(t, err, protocol.InvalidParams, "in "+filepath.Join(root, "nested.sdf"), "leads outside")
}
