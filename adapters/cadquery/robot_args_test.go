package cadquery

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// The robot model's rules are Go's alone, so they are checked here with
// no kernel: the files only have to exist.
func robotTestAdapter(t *testing.T) (*Adapter, string) {
	t.Helper()
	ws := workspace.New(t.TempDir())
	if err := os.MkdirAll(ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	step := filepath.Join(ws.Root, "part.step")
	if err := os.WriteFile(step, []byte("ISO-10303-21;"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(ws, Options{Python: "/nonexistent/python3"})
	t.Cleanup(func() { _ = a.Close() })
	return a, step
}

func ptr(v float64) *float64 { return &v }

func TestRobotRequestOrdersAndConverts(t *testing.T) {
	a, step := robotTestAdapter(t)
	in := robotArgs{
		Material: "aluminium",
		Parts: []robotPartArgs{
			{Name: "tool", File: step, X: 400}, {Name: "upper", File: step, X: 275, Material: "steel"}, {Name: "base", File: step, X: 100},
		},
		Joints: []jointArgs{
			{Name: "wrist", Type: "slider", Base: "upper", Follower: "tool", Origin: []float64{350, 0, 0}, Axis: []float64{2, 0, 0},
				Limits: &jointLimits{Lower: 0, Upper: 50, Effort: ptr(20), Velocity: ptr(100)}},
			{Name: "elbow", Type: "revolute", Base: "base", Follower: "upper", Origin: []float64{200, 0, 0}, Axis: []float64{0, 0, 3},
				Limits: &jointLimits{Lower: -90, Upper: 90, Effort: ptr(5), Velocity: ptr(180)}},
		},
	}
	req, err := a.robotRequest("arm", in, formatURDF)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range req.Parts {
		order = append(order, p.Name)
	}
	if !slices.Equal(order, []string{"base", "upper", "tool"}) {
		t.Fatalf("parts in order %v, want the root first, every base before its follower", order)
	}
	if req.Parts[0].Material != "aluminum_6061_t6" || req.Parts[0].DensityKgM3 != 2700 || req.Parts[1].Material != "steel" || req.Parts[1].DensityKgM3 != 7850 {
		t.Errorf("materials %+v: want the call's by default and a part's own over it", req.Parts)
	}
	if !filepath.IsAbs(req.Parts[0].File) {
		t.Errorf("file %q is not resolved to an absolute path", req.Parts[0].File)
	}
	elbow, wrist := req.Joints[0], req.Joints[1]
	if elbow.Name != "elbow" || elbow.Kind != "revolute" || wrist.Kind != "prismatic" || elbow.Parent != "base" || elbow.Child != "upper" {
		t.Fatalf("joints %+v", req.Joints)
	}
	if *elbow.Axis != [3]float64{0, 0, 1} || *wrist.Axis != [3]float64{1, 0, 0} {
		t.Errorf("axes %v %v, want normalised", *elbow.Axis, *wrist.Axis)
	}
	// 90 degrees is pi/2 rad, 180 deg/s pi rad/s; 50 mm is 0.05 m, 100 mm/s 0.1 m/s.
	l := elbow.Limits
	if math.Abs(l.Upper-math.Pi/2) > 1e-15 || math.Abs(l.Lower+math.Pi/2) > 1e-15 || math.Abs(*l.Velocity-math.Pi) > 1e-15 || *l.Effort != 5 {
		t.Errorf("revolute limits in SI = %+v", *l)
	}
	l = wrist.Limits
	if math.Abs(l.Upper-0.05) > 1e-15 || l.Lower != 0 || math.Abs(*l.Velocity-0.1) > 1e-15 || *l.Effort != 20 {
		t.Errorf("slider limits in SI = %+v", *l)
	}

	// Without limits a revolute joint turns freely: continuous in URDF and SDF.
	in.Joints[1].Limits = nil
	for format, want := range map[string]string{formatURDF: "continuous", formatSDF: "continuous", formatUSD: "PhysicsRevoluteJoint"} {
		req, err := a.robotRequest("arm", in, format)
		if err != nil || req.Joints[0].Kind != want || req.Joints[0].Limits != nil {
			t.Errorf("%s: an unlimited revolute joint = %+v, %v; want %s without limits", format, req.Joints, err, want)
		}
	}
}

func TestRobotJointKindTable(t *testing.T) {
	lim := &jointLimits{Lower: 0, Upper: 1, Effort: ptr(1), Velocity: ptr(1)}
	want := map[string]map[string]string{
		"fixed":       {formatURDF: "fixed", formatSDF: "fixed", formatUSD: "PhysicsFixedJoint"},
		"slider":      {formatURDF: "prismatic", formatSDF: "prismatic", formatUSD: "PhysicsPrismaticJoint"},
		"revolute":    {formatURDF: "revolute", formatSDF: "revolute", formatUSD: "PhysicsRevoluteJoint"},
		"ball":        {formatURDF: "", formatSDF: "ball", formatUSD: "PhysicsSphericalJoint"},
		"cylindrical": {formatURDF: "", formatSDF: "", formatUSD: ""},
	}
	for typ, byFormat := range want {
		for format, kind := range byFormat {
			j := jointArgs{Name: "j", Type: typ}
			if typ != "fixed" && typ != "ball" {
				j.Limits = lim
			}
			got, err := jointKind(format, j)
			if kind == "" {
				if err == nil {
					t.Errorf("%s in %s = %q, want it refused", typ, format, got)
				}
				continue
			}
			if err != nil || got != kind {
				t.Errorf("%s in %s = %q, %v; want %q", typ, format, got, err, kind)
			}
		}
	}
}

func TestRobotRequestRefusals(t *testing.T) {
	a, step := robotTestAdapter(t)
	two := func(j jointArgs) robotArgs {
		return robotArgs{Material: "steel", Parts: []robotPartArgs{{Name: "a", File: step}, {Name: "b", File: step}}, Joints: []jointArgs{j}}
	}
	rev := jointArgs{Name: "j", Type: "revolute", Base: "a", Follower: "b", Origin: []float64{0, 0, 0}, Axis: []float64{0, 0, 1}}
	with := func(f func(*jointArgs)) robotArgs { j := rev; f(&j); return two(j) }
	cases := []struct {
		name   string
		format string
		in     robotArgs
		says   []string
	}{
		{"ball in URDF", formatURDF, with(func(j *jointArgs) { j.Type = "ball" }), []string{`joint "j"`, "ball", "URDF", "export_sdf_assembly"}},
		{"cylindrical in USD", formatUSD, with(func(j *jointArgs) { j.Type = "cylindrical" }), []string{`joint "j"`, "cylindrical", "slider and a revolute"}},
		{"slider without limits", formatSDF, with(func(j *jointArgs) { j.Type = "slider" }), []string{"joints[0]", `"j"`, "slider without limits", "lower, upper"}},
		{"limits upside down", formatSDF, with(func(j *jointArgs) { j.Limits = &jointLimits{Lower: 5, Upper: 5} }), []string{"joints[0].limits", "lower (5) must be below upper (5)"}},
		{"URDF limits without effort", formatURDF, with(func(j *jointArgs) { j.Limits = &jointLimits{Lower: -5, Upper: 5, Velocity: ptr(1)} }),
			[]string{`joint "j"`, "without effort", "limits.effort"}},
		{"fixed with limits", formatUSD, with(func(j *jointArgs) { j.Type = "fixed"; j.Limits = &jointLimits{Lower: 0, Upper: 1} }), []string{"fixed", "takes no limits"}},
		{"no axis", formatUSD, with(func(j *jointArgs) { j.Axis = nil }), []string{"joints[0].axis is required", "[0, 0, 1]"}},
		{"zero axis", formatUSD, with(func(j *jointArgs) { j.Axis = []float64{0, 0, 0} }), []string{"joints[0].axis", "no direction"}},
		{"short origin", formatUSD, with(func(j *jointArgs) { j.Origin = []float64{1} }), []string{"joints[0].origin", "[x, y, z]"}},
		{"unknown part", formatURDF, with(func(j *jointArgs) { j.Follower = "c" }), []string{"joints[0].follower", `"c"`, "names no part", "a, b"}},
		{"joint named as a part", formatURDF, with(func(j *jointArgs) { j.Name = "a" }), []string{"joints[0].name", "also a part's name"}},
		{"unknown type", formatURDF, with(func(j *jointArgs) { j.Type = "hinge" }), []string{"joints[0].type", "hinge", "fixed, slider, revolute, cylindrical, ball"}},
		{"two roots", formatURDF, robotArgs{Material: "steel", Parts: []robotPartArgs{{Name: "a", File: step}, {Name: "b", File: step}}},
			[]string{`"a", "b"`, "2 roots", "exactly one root"}},
		{"a cycle", formatURDF, robotArgs{Material: "steel",
			Parts: []robotPartArgs{{Name: "r", File: step}, {Name: "a", File: step}, {Name: "b", File: step}},
			Joints: []jointArgs{
				{Name: "ab", Type: "fixed", Base: "a", Follower: "b", Origin: []float64{0, 0, 0}},
				{Name: "ba", Type: "fixed", Base: "b", Follower: "a", Origin: []float64{0, 0, 0}},
			}}, []string{"cycle", "a -> b -> a", "remove one"}},
		{"two bases", formatURDF, robotArgs{Material: "steel",
			Parts: []robotPartArgs{{Name: "r", File: step}, {Name: "a", File: step}, {Name: "b", File: step}},
			Joints: []jointArgs{
				{Name: "ra", Type: "fixed", Base: "r", Follower: "a", Origin: []float64{0, 0, 0}},
				{Name: "rb", Type: "fixed", Base: "r", Follower: "b", Origin: []float64{0, 0, 0}},
				{Name: "ab", Type: "fixed", Base: "a", Follower: "b", Origin: []float64{0, 0, 0}},
			}}, []string{`part "b" is the follower of two joints`, `"rb" and "ab"`}},
		{"no material", formatURDF, robotArgs{Parts: []robotPartArgs{{Name: "a", File: step}}}, []string{`part "a" has no material`, "parts[0].material"}},
		{"unknown material", formatURDF, robotArgs{Parts: []robotPartArgs{{Name: "a", File: step, Material: "cheese"}}}, []string{"parts[0].material", "cheese", "steel"}},
		{"bad part name", formatURDF, robotArgs{Material: "steel", Parts: []robotPartArgs{{Name: "link 1", File: step}}}, []string{"parts[0].name", "letters, digits and underscores"}},
		{"missing file", formatURDF, robotArgs{Material: "steel", Parts: []robotPartArgs{{Name: "a", File: "nope.step"}}}, []string{"parts[0].file", "does not exist"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := a.robotRequest("arm", c.in, c.format)
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
				t.Fatalf("want INVALID_PARAMS, got %v", err)
			}
			t.Log(pe.Details)
			for _, s := range c.says {
				if !strings.Contains(pe.Details, s) {
					t.Errorf("the error does not say %q: %s", s, pe.Details)
				}
			}
		})
	}
}
