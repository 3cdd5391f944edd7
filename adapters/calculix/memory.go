package calculix

import (
	"fmt"
	"math"

	"github.com/metaforge/metaforge/protocol"
)

// The memory a solve may use, and the memory it will need.
//
// A call may use DefaultCallMemoryMB unless it asks for more with
// max_memory_mb, up to the deployment's maximum (Options.MaxMemoryMB, which
// the sandbox enforces as the tool's limit). Before ccx starts, its memory
// is estimated from the node count, and a solve that cannot fit is refused
// at once with the estimate, instead of failing after minutes.

// DefaultCallMemoryMB is the memory a solve may use unless the call asks
// for more.
const DefaultCallMemoryMB = 2048

// minCallMemoryMB is the least a call may ask for: ccx itself needs it.
const minCallMemoryMB = 64

// MaxMemoryEnv names the deployment maximum in messages: the environment
// variable cmd/metaforge reads it from.
const MaxMemoryEnv = "METAFORGE_FEA_MAX_MEMORY_MB"

// solveKind is what ccx is asked to solve: its memory differs.
type solveKind string

const (
	solveStatic  solveKind = "static"
	solveModal   solveKind = "modal"
	solveThermal solveKind = "thermal"
)

// estimateMemoryMB is the peak memory ccx 2.20 with its SPOOLES solver,
// one thread, was measured to need for a tetrahedral mesh of this many
// nodes (peak RSS by /usr/bin/time -f %M on slender beams meshed by gmsh):
//
//	static, C3D10:  3,366 nodes 33 MB; 22,988 nodes 266 MB; 82,432 nodes 1,334 MB
//	static, C3D4:  12,237 nodes 112 MB; 39,552 nodes 492 MB
//	modal (6 modes), C3D10: 22,988 nodes 285 MB
//	thermal, C3D10: 22,988 nodes 62 MB; 82,432 nodes 245 MB
//
// The sparse factor grows as nodes^1.3 for the three structural degrees of
// freedom and nodes^1.2 for the one thermal one; a linear mesh's nodes
// fill in a tenth less. A compact part (a cube:
// 29,597 nodes took 677 MB) fills in more than a slender one, so this is
// the least a mesh of that size needs: a solve over it cannot fit.
func estimateMemoryMB(nodes int, elementType string, kind solveKind) int {
	const reference = 22988.0 // nodes of the measured middle mesh
	x := float64(nodes) / reference
	fill := 1.0
	if elementType == "C3D4" {
		fill = 0.9
	}
	var mb float64
	switch kind {
	case solveThermal:
		mb = 10 + fill*52*math.Pow(x, 1.2)
	case solveModal:
		mb = 1.07 * (15 + fill*251*math.Pow(x, 1.3))
	default:
		mb = 15 + fill*251*math.Pow(x, 1.3)
	}
	return int(math.Ceil(mb))
}

// memoryPlan is what one solve may use and is expected to need.
type memoryPlan struct {
	LimitMB    int `json:"max_memory_mb"`
	EstimateMB int `json:"memory_estimate_mb"`
	deployMax  int
}

// planMemory checks the call's max_memory_mb against the deployment's
// maximum and the solve's estimate against the call's limit. Each refusal
// says which of the two to change.
func (a *Adapter) planMemory(asked *int, mesh *Mesh, kind solveKind) (memoryPlan, error) {
	nodes := len(mesh.Nodes)
	p := memoryPlan{LimitMB: DefaultCallMemoryMB, deployMax: a.maxMemoryMB(), EstimateMB: estimateMemoryMB(nodes, mesh.ElementType, kind)}
	if p.LimitMB > p.deployMax {
		p.LimitMB = p.deployMax
	}
	if asked != nil {
		switch {
		case *asked < minCallMemoryMB:
			return p, protocol.Invalid("max_memory_mb %d is below the %d MB ccx needs to start; leave it out for the default %d MB", *asked, minCallMemoryMB, DefaultCallMemoryMB)
		case *asked > p.deployMax:
			return p, protocol.Invalid("max_memory_mb %d is over this deployment's maximum of %d MB (%s); ask for at most %d, or have the deployment's maximum raised",
				*asked, p.deployMax, MaxMemoryEnv, p.deployMax)
		}
		p.LimitMB = *asked
	}
	if p.EstimateMB <= p.LimitMB {
		return p, nil
	}
	need := fmt.Sprintf("ccx needs at least about %d MB for this %s solve of %d nodes (from ccx's measured use; a compact part needs up to twice as much), over the call's limit of %d MB",
		p.EstimateMB, kind, nodes, p.LimitMB)
	if p.EstimateMB <= p.deployMax {
		return p, protocol.Refusal("%s; nothing was run. Give max_memory_mb %d or more (this deployment allows up to %d), or mesh coarser (a larger mesh_size_mm in gmsh.generate_mesh)",
			need, roundUpMB(p.EstimateMB), p.deployMax)
	}
	return p, protocol.Refusal("%s, and over this deployment's maximum of %d MB; nothing was run. Mesh coarser (a larger mesh_size_mm in gmsh.generate_mesh), or have the deployment's maximum (%s) raised to %d or more",
		need, p.deployMax, MaxMemoryEnv, roundUpMB(p.EstimateMB))
}

// memoryHint is what a solve that ran out of memory anyway should change.
func (p memoryPlan) memoryHint() string {
	if p.LimitMB < p.deployMax {
		return fmt.Sprintf("the estimate was %d MB; give max_memory_mb up to %d (this deployment's maximum, %s), or mesh coarser", p.EstimateMB, p.deployMax, MaxMemoryEnv)
	}
	return fmt.Sprintf("the estimate was %d MB and the call already has this deployment's maximum; mesh coarser (a larger mesh_size_mm), or have the maximum (%s) raised", p.EstimateMB, MaxMemoryEnv)
}

// roundUpMB rounds a figure up to a whole 256 MB, a number to type.
func roundUpMB(mb int) int {
	return (mb + 255) / 256 * 256
}

// maxMemoryMB is the deployment's maximum for one solve.
func (a *Adapter) maxMemoryMB() int {
	if a.opts.MaxMemoryMB > 0 {
		return a.opts.MaxMemoryMB
	}
	return DefaultCallMemoryMB
}
