package calculix

import (
	"math"

	"github.com/metaforge/metaforge/internal/vec3"

	"github.com/metaforge/metaforge/protocol"
)

// Link is one rigid link of a serial chain, after the joint of the same
// index.
type Link struct {
	Name   string    `json:"name"`
	MassKg float64   `json:"mass_kg"`
	CoMMM  []float64 `json:"com_mm"`
}

// Joint is where a link hangs from the one before it, posed.
type Joint struct {
	Name       string    `json:"name"`
	PositionMM []float64 `json:"position_mm"`
}

// Payload is a mass carried at the end of the chain.
type Payload struct {
	MassKg     float64   `json:"mass_kg"`
	PositionMM []float64 `json:"position_mm"`
}

// JointLoadsRequest is calculix.compute_joint_loads's arguments.
type JointLoadsRequest struct {
	Joints  []Joint   `json:"joints" jsonschema:"Joints from base to tip, posed."`
	Links   []Link    `json:"links" jsonschema:"Link i is driven by joint i."`
	Payload *Payload  `json:"payload,omitempty"`
	Gravity []float64 `json:"gravity_m_s2,omitempty"`
}

// JointLoad is the reaction a joint carries.
type JointLoad struct {
	Name        string     `json:"name"`
	ForceN      [3]float64 `json:"force_n"`
	ForceMagN   float64    `json:"force_magnitude_n"`
	MomentNm    [3]float64 `json:"moment_nm"`
	MomentMagNm float64    `json:"moment_magnitude_nm"`
	// SupportedMassKg is everything outboard of the joint.
	SupportedMassKg float64 `json:"supported_mass_kg"`
}

// JointLoadsResult is the quasi-static reaction at every joint.
type JointLoadsResult struct {
	Joints     []JointLoad `json:"joints"`
	WorstJoint string      `json:"worst_joint"`
	// WorstForceN is the worst joint's force magnitude, ready to pass to
	// calculix.run_fea as load_force_n.
	WorstForceN  float64 `json:"worst_force_n"`
	WorstMomentN float64 `json:"worst_moment_nm"`
	Method       string  `json:"method"`
}

func point3(v []float64, arg string) ([3]float64, error) {
	if len(v) != 3 {
		return [3]float64{}, protocol.Invalid("%s must be [x, y, z]", arg)
	}
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return [3]float64{}, protocol.Invalid("%s must be finite numbers", arg)
		}
	}
	return [3]float64{v[0], v[1], v[2]}, nil
}

// computeJointLoads sums, for each joint, the weight of every link (and the
// payload) outboard of it: the joint carries that force and its moment
// about the joint. Gravity only: no velocity, acceleration or friction.
func computeJointLoads(req JointLoadsRequest) (*JointLoadsResult, error) {
	if len(req.Joints) == 0 {
		return nil, protocol.Invalid("joints is empty: give the chain's joints from base to tip")
	}
	if len(req.Links) != len(req.Joints) {
		return nil, protocol.Invalid("links has %d entries and joints %d: link i is the one driven by joint i, so they must match", len(req.Links), len(req.Joints))
	}
	g := [3]float64{0, 0, -9.80665}
	if req.Gravity != nil {
		var err error
		if g, err = point3(req.Gravity, "gravity_m_s2"); err != nil {
			return nil, err
		}
	}
	type mass struct {
		m float64
		p [3]float64
	}
	var masses []mass
	for i, l := range req.Links {
		if !(l.MassKg >= 0) {
			return nil, protocol.Invalid("links[%d].mass_kg must not be negative", i)
		}
		p, err := point3(l.CoMMM, "links[].com_mm")
		if err != nil {
			return nil, err
		}
		masses = append(masses, mass{l.MassKg, p})
	}
	if req.Payload != nil {
		if !(req.Payload.MassKg >= 0) {
			return nil, protocol.Invalid("payload.mass_kg must not be negative")
		}
		p, err := point3(req.Payload.PositionMM, "payload.position_mm")
		if err != nil {
			return nil, err
		}
		masses = append(masses, mass{req.Payload.MassKg, p})
	}
	out := &JointLoadsResult{Method: "quasi-static, gravity only: each joint carries the weight of everything outboard of it and that weight's moment about the joint"}
	worst := -1.0
	for i, j := range req.Joints {
		at, err := point3(j.PositionMM, "joints[].position_mm")
		if err != nil {
			return nil, err
		}
		jl := JointLoad{Name: j.Name}
		for _, m := range masses[i:] {
			w := [3]float64{m.m * g[0], m.m * g[1], m.m * g[2]}
			r := vec3.Sub(m.p, at)
			r = [3]float64{r[0] * 1e-3, r[1] * 1e-3, r[2] * 1e-3}
			mo := vec3.Cross(r, w)
			for k := range 3 {
				// The joint's reaction balances the weight and its moment.
				jl.ForceN[k] -= w[k]
				jl.MomentNm[k] -= mo[k]
			}
			jl.SupportedMassKg += m.m
		}
		jl.ForceMagN, jl.MomentMagNm = vec3.Norm(jl.ForceN), vec3.Norm(jl.MomentNm)
		if jl.MomentMagNm > worst {
			worst = jl.MomentMagNm
			out.WorstJoint, out.WorstForceN, out.WorstMomentN = jl.Name, jl.ForceMagN, jl.MomentMagNm
		}
		out.Joints = append(out.Joints, jl)
	}
	return out, nil
}
