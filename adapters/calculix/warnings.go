package calculix

import (
	"fmt"
	"math"
	"strings"
)

// The warnings run_fea gives where its numbers could mislead: a load a
// modal run ignored, a peak that is a singularity, linear tetrahedra
// locking in bending.

// ignoredInModal names the static arguments a modal call gave: natural
// frequencies do not depend on a load, so they are not used, and the call
// is told rather than left to think they were.
func ignoredInModal(req FEARequest) []string {
	var given []string
	if req.LoadNodeSet != "" {
		given = append(given, "load_node_set")
	}
	if req.LoadForceN != nil {
		given = append(given, "load_force_n")
	}
	if req.LoadDirection != nil {
		given = append(given, "load_direction")
	}
	if len(given) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s ignored: a modal analysis finds the natural frequencies of the part held at fixed_node_set, which no load changes (linear, no preload); run analysis_type static_stress for the load's stresses",
		strings.Join(given, " and "))}
}

// singularityWarning says that the peak is not a design value, and where
// to read one instead.
func (res *FEAResult) singularityWarning() string {
	s := res.MaxVonMisesSingularity
	w := fmt.Sprintf("max von Mises %.4g MPa at %s mm: %s", *res.MaxVonMisesMPa, point(res.MaxVonMisesAt), s.Explanation)
	if len(res.SectionStress) == 0 {
		return w + "; read the stress away from the face, or refine the mesh near it and see whether the peak keeps rising (calculix.check_mesh_convergence)"
	}
	sec := res.SectionStress[0]
	return w + fmt.Sprintf("; the stress through the section %.4g mm from %s, linearised, is %.4g MPa (membrane %.4g, bending %.4g; section_stress): compare that with a hand calculation and the material's limits",
		sec.DistanceMM, sec.Support, sec.LinearizedPeakMPa, sec.MembraneMPa, sec.BendingMPa)
}

// linearTetWarning warns that C3D4 elements lock in bending: a modal
// analysis always bends, and a static one does wherever its sections
// carry bending (or no section says it does not).
func linearTetWarning(res *FEAResult) string {
	if res.ElementType != "C3D4" {
		return ""
	}
	why := "where the part bends"
	if res.AnalysisType == "static_stress" && len(res.SectionStress) > 0 {
		share := 0.0
		for _, s := range res.SectionStress {
			if s.LinearizedPeakMPa > 0 {
				share = math.Max(share, s.BendingMPa/s.LinearizedPeakMPa)
			}
		}
		if share < 0.1 {
			return "" // a membrane field: constant-strain elements represent it
		}
		sec := res.SectionStress[0]
		why = fmt.Sprintf("and this part bends (bending is %.0f%% of the stress through the section at %.4g mm", 100*share, sec.DistanceMM)
		if sec.Equilibrium != nil {
			why += fmt.Sprintf(", whose stresses miss the load's force and moment by %.0f%%", sec.Equilibrium.ErrorPct)
		}
		why += ")"
	} else if res.AnalysisType == "modal" {
		why = "and a part's low modes bend"
	}
	return fmt.Sprintf("the mesh is linear tetrahedra (C3D4), which lock in bending (shear locking) %s: deflections come out too small and frequencies too high, often by tens of percent; mesh again with gmsh.generate_mesh element_order 2 (C3D10) and solve again", why)
}

// point prints a position in mm.
func point(p []float64) string {
	if len(p) != 3 {
		return "?"
	}
	return fmt.Sprintf("[%.4g, %.4g, %.4g]", p[0], p[1], p[2])
}
