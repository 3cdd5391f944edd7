package calculix

import (
	"math"
	"testing"
)

// A two-link horizontal arm: joint 1 at the origin carries both links and
// the payload, joint 2 at x = 300 mm carries link 2 and the payload.
// Moments by hand: M1 = g (2 * 0.15 + 1 * 0.45 + 0.5 * 0.6) N m,
// M2 = g (1 * 0.15 + 0.5 * 0.3).
func TestJointLoadsHorizontalArm(t *testing.T) {
	r, err := computeJointLoads(JointLoadsRequest{
		Joints:  []Joint{{"shoulder", []float64{0, 0, 0}}, {"elbow", []float64{300, 0, 0}}},
		Links:   []Link{{"upper", 2, []float64{150, 0, 0}}, {"fore", 1, []float64{450, 0, 0}}},
		Payload: &Payload{MassKg: 0.5, PositionMM: []float64{600, 0, 0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	g := 9.80665
	want := []struct{ force, moment float64 }{{3.5 * g, g * (0.3 + 0.45 + 0.3)}, {1.5 * g, g * (0.15 + 0.15)}}
	for i, w := range want {
		j := r.Joints[i]
		if math.Abs(j.ForceMagN-w.force) > 1e-9 || math.Abs(j.MomentMagNm-w.moment) > 1e-9 {
			t.Errorf("%s: force %g N moment %g N m, want %g and %g", j.Name, j.ForceMagN, j.MomentMagNm, w.force, w.moment)
		}
		if j.ForceN[2] <= 0 {
			t.Errorf("%s: the reaction holds the weight up, +z: %v", j.Name, j.ForceN)
		}
	}
	if r.WorstJoint != "shoulder" || math.Abs(r.WorstForceN-3.5*g) > 1e-9 {
		t.Errorf("worst joint %s (%g N), want shoulder", r.WorstJoint, r.WorstForceN)
	}
	if _, err := computeJointLoads(JointLoadsRequest{Joints: []Joint{{"a", []float64{0, 0, 0}}}}); err == nil {
		t.Error("links and joints must match")
	}
}
