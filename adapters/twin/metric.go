package twin

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/units"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// MetricEngine describes a tiered evaluation as the durable process that
// runs it (tier 2 is a real solver call, a child ToolCall, so the
// evaluation survives a restart); the call's workflow runs that process as
// its child.
type MetricEngine interface {
	MetricProcess(m twin.MetricCall) (adapters.Process, error)
}

func evaluateMetricTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.evaluate_metric", Name: "Evaluate a metric (tiered)", Capability: "twin_write",
		Description: "Tiered evaluation of tip_deflection on a CAD work product's recorded geometry (bounding_box: x the length, y the " +
			"width, z the height; wall_thickness_mm makes it a tube; material). Tier 0 is the closed-form cantilever F L^3 / (3 E I). When " +
			"its margin to limit_mm lies inside its error band (band_pct of the estimate), tier 2 runs calculix.run_fea as a durable " +
			"child call on the mesh and node sets given in tier2 (it does not guess boundary conditions: without tier2 the escalation is " +
			"reported as not attempted). Each tier's answer is recorded as evidence with its tier, pinned to the work product's revision, " +
			"with a replay recipe (data.replay: this tool and these arguments on that revision) so an engineering change's " +
			"revalidation can re-run it; supersedes names stale evidence the new evidence replaces.",
		Idempotent: true, TimeoutSeconds: 900}, evaluateMetric,
		adapters.At("work_product_id", adapters.MinLength(1)),
		adapters.At("metric", adapters.Enum("tip_deflection")),
		adapters.At("load_n", adapters.ExclusiveMinimum(0)),
		adapters.At("limit_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("band_pct", adapters.ExclusiveMinimum(0), adapters.Maximum(100), adapters.Default(20)),
		adapters.At("tier2.mesh_file", adapters.MinLength(1)),
		adapters.At("tier2.fixed_node_set", adapters.MinLength(1)),
		adapters.At("tier2.load_node_set", adapters.MinLength(1)),
		adapters.At("tier2.load_direction", adapters.MinItems(3), adapters.MaxItems(3)),
		adapters.At("supersedes", adapters.MaxItems(50)), adapters.At("supersedes[]", adapters.MinLength(1)))
}

type evaluateMetricArgs struct {
	project.Scope
	WorkProductID string     `json:"work_product_id"`
	Metric        string     `json:"metric"`
	LoadN         float64    `json:"load_n" jsonschema:"tip load, N"`
	LimitMM       float64    `json:"limit_mm"`
	BandPct       *float64   `json:"band_pct,omitempty" jsonschema:"tier 0's error band, percent of its estimate"`
	Tier2         *tier2Args `json:"tier2,omitempty"`
	Supersedes    []string   `json:"supersedes,omitempty" jsonschema:"node ids of stale evidence this evaluation replaces (an engineering change's revalidation)"`
}

// tier2Args are the solver inputs tier 2 runs with (twin.Tier2Call).
type tier2Args struct {
	MeshFile      string    `json:"mesh_file"`
	FixedNodeSet  string    `json:"fixed_node_set"`
	LoadNodeSet   string    `json:"load_node_set"`
	Material      string    `json:"material,omitempty"`
	LoadDirection []float64 `json:"load_direction,omitempty"`
}

func (t *tier2Args) call() *twin.Tier2Call {
	if t == nil {
		return nil
	}
	return &twin.Tier2Call{MeshFile: t.MeshFile, FixedNodeSet: t.FixedNodeSet, LoadNodeSet: t.LoadNodeSet, Material: t.Material,
		LoadDirection: t.LoadDirection}
}

func evaluateMetric(ctx context.Context, b *Backend, a evaluateMetricArgs) (any, error) {
	if b.Metrics == nil {
		return nil, protocol.Unavailable("a tiered evaluation needs Temporal, which this server is not connected to")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	if _, err := b.workProduct(ctx, p.ID, a.WorkProductID); err != nil {
		return nil, classify(err)
	}
	m := twin.MetricCall{CallID: adapters.CallInfoFrom(ctx).CallID, ProjectID: p.ID, WorkProductID: a.WorkProductID, Metric: a.Metric,
		LoadN: a.LoadN, LimitMM: a.LimitMM, BandPct: 20, Tier2: a.Tier2.call(), Supersedes: a.Supersedes}
	if a.BandPct != nil {
		m.BandPct = *a.BandPct
	}
	proc, err := b.Metrics.MetricProcess(m)
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Process: &proc}, nil
}

// cantileverOf is the work product as a cantilever along x: a tube when it
// records a wall, else a solid rectangular bar.
func cantileverOf(n twin.Node) (beam.Cantilever, string, string, error) {
	dims := map[string]float64{}
	var missing []string
	for _, k := range []string{"length", "width", "height"} {
		v, ok, _ := twin.CadModelValue(n, k)
		if !ok {
			missing = append(missing, "bounding_box ({size:[x,y,z]} mm) in the cad_model's properties")
			break
		}
		mm, err := units.Convert(v.Value, v.Unit, "mm")
		if err != nil || !(mm > 0) {
			missing = append(missing, "a bounding_box in mm with positive sizes")
			break
		}
		dims[k] = mm
	}
	mat, name, note := twin.CadMaterial(n)
	if name == "" || note != "" {
		missing = append(missing, "a known material on the cad_model")
	}
	if len(missing) > 0 {
		return beam.Cantilever{}, "", "", protocol.Refusal("cad_model %s cannot be read as a cantilever: record %s with twin.commit_geometry",
			n.Ref(), strings.Join(missing, "; "))
	}
	var section beam.Section = beam.Rect{Width: dims["width"], Height: dims["height"]}
	method := "solid rectangular cantilever, F L^3 / (3 E I), I = w h^3 / 12"
	for _, p := range twin.WallProps {
		if w, ok := twin.NumberOf(n.Properties[p]); ok && w > 0 {
			section = beam.HollowRect{Width: dims["width"], Height: dims["height"], Wall: w}
			method = "hollow rectangular tube cantilever, F L^3 / (3 E I)"
			break
		}
	}
	return beam.Cantilever{Section: section, LengthMM: dims["length"], YoungsModulusMPa: mat.YoungsModulusGPa * 1000}, method, name, nil
}

// Tier0Metric computes the closed form, judges its margin against its
// band, and records it as tier-0 evidence.
func (b *Backend) Tier0Metric(ctx context.Context, m twin.MetricCall) (twin.TierAnswer, error) {
	n, err := b.workProduct(ctx, m.ProjectID, m.WorkProductID)
	if err != nil {
		return twin.TierAnswer{}, classify(err)
	}
	c, method, material, err := cantileverOf(n)
	if err != nil {
		return twin.TierAnswer{}, err
	}
	v := c.TipDeflection(m.LoadN)
	ans := twin.TierAnswer{ValueMM: v, MarginMM: m.LimitMM - v, BandMM: v * m.BandPct / 100, Method: method, Material: material}
	ans.InBand = math.Abs(ans.MarginMM) <= ans.BandMM
	ans.Passes = ans.MarginMM >= 0
	ans.EvidenceID, err = b.recordTier(ctx, m, n, 0, v, map[string]any{"method": method, "band_mm": ans.BandMM, "margin_mm": ans.MarginMM,
		"margin_inside_band": ans.InBand})
	return ans, err
}

// RecordTier2Metric records the solver's tip deflection as tier-2 evidence.
func (b *Backend) RecordTier2Metric(ctx context.Context, m twin.MetricCall, valueMM float64, solverCall string) (twin.TierAnswer, error) {
	n, err := b.workProduct(ctx, m.ProjectID, m.WorkProductID)
	if err != nil {
		return twin.TierAnswer{}, classify(err)
	}
	ans := twin.TierAnswer{ValueMM: valueMM, MarginMM: m.LimitMM - valueMM, Passes: valueMM <= m.LimitMM, Method: "calculix.run_fea (static)"}
	ans.EvidenceID, err = b.recordTier(ctx, m, n, 2, valueMM, map[string]any{"method": ans.Method, "solver_call_id": solverCall,
		"margin_mm": ans.MarginMM})
	return ans, err
}

// recordTier records one tier's answer, keyed by the evaluation's call and
// the tier, pinned to the work product's revision.
func (b *Backend) recordTier(ctx context.Context, m twin.MetricCall, n twin.Node, tier int, value float64, data map[string]any) (string, error) {
	data["tier"], data["load_n"], data["limit_mm"] = tier, m.LoadN, m.LimitMM
	ctx = adapters.WithCallInfo(ctx, adapters.CallInfo{CallID: fmt.Sprintf("%s/tier%d", m.CallID, tier)})
	pin := n.Ref()
	if pin == "" {
		pin = n.ID
	}
	kind := "calculation"
	if tier == 2 {
		kind = "simulation"
	}
	data["replay"] = map[string]any{"tool_id": "twin.evaluate_metric", "args": metricReplayArgs(m, pin)}
	args := map[string]any{"project_id": m.ProjectID, "name": fmt.Sprintf("%s tier %d", m.Metric, tier),
		"kind": kind, "metric": m.Metric, "value": value, "unit": "mm", "valid_against": []string{pin}, "data": data}
	if len(m.Supersedes) > 0 {
		args["supersedes"] = m.Supersedes
	}
	out, err := recordEvidenceAs(ctx, b, args)
	if err != nil {
		return "", err
	}
	id, _ := out["node_id"].(string)
	return id, nil
}

// metricReplayArgs are the evaluation's own arguments, with the work
// product named by the revision it was pinned to (KEY@n), so replaying
// them after a change (twin.RebaseReplay moves the ref) evaluates the
// changed design the same way. supersedes is not part of the recipe.
func metricReplayArgs(m twin.MetricCall, pin string) map[string]any {
	args := map[string]any{"project_id": m.ProjectID, "work_product_id": pin, "metric": m.Metric, "load_n": m.LoadN,
		"limit_mm": m.LimitMM, "band_pct": m.BandPct}
	if t := m.Tier2; t != nil {
		t2 := map[string]any{"mesh_file": t.MeshFile, "fixed_node_set": t.FixedNodeSet, "load_node_set": t.LoadNodeSet}
		if t.Material != "" {
			t2["material"] = t.Material
		}
		if len(t.LoadDirection) > 0 {
			t2["load_direction"] = t.LoadDirection
		}
		args["tier2"] = t2
	}
	return args
}

// MaterialOf is the material a work product records, for tier 2's solver
// call when the caller names none.
func (b *Backend) MaterialOf(ctx context.Context, projectID, workProductID string) (string, error) {
	n, err := b.workProduct(ctx, projectID, workProductID)
	if err != nil {
		return "", classify(err)
	}
	_, name, _ := twin.CadMaterial(n)
	return name, nil
}
