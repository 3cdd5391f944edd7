package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

// The five typed document tools: each takes its document's fields as its
// own arguments, checks them (twin's rules), and records the document
// through twin.RecordDocument as the next revision of a document item
// keyed by title (DOC-...), its text the content rendered as markdown and
// the content beside it, linked CONCERNS to the items it is about.

func typedDocumentTools() []tool {
	return []tool{commitComplianceChecklistTool(), commitDesignSketchTool(), commitHazardAnalysisTool(),
		commitProcurementRecordTool(), commitTechnicalDrawingTool()}
}

// typedDocArgs are what every typed document tool takes besides its
// content.
type typedDocArgs struct {
	project.Scope
	Title    string   `json:"title" jsonschema:"the document's title; the same title revises the same document (DOC-<TITLE>)"`
	Concerns []string `json:"concerns,omitempty" jsonschema:"the items the document is about (KEY@n, KEY for the current revision, or a node id), linked CONCERNS"`
	Notes    string   `json:"notes,omitempty" jsonschema:"free text recorded after the rendered content"`
	itemArgs
}

// typedDocRules are the rules every typed document tool's common
// arguments follow, then its own.
func typedDocRules(own ...adapters.SchemaRule) []adapters.SchemaRule {
	return withItemRules(append([]adapters.SchemaRule{
		adapters.At("title", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("concerns", adapters.MaxItems(50)), adapters.At("concerns[]", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("notes", adapters.MaxLength(20000)),
	}, own...)...)
}

// typedDocWrite is the common tail of every typed document tool's
// description.
const typedDocWrite = " Recorded as the next revision of a document item keyed by title (DOC-...; item_key, supersedes and change_reason pin it), " +
	"its text the content rendered as markdown and the content itself beside it, linked CONCERNS to the items in concerns. A document item " +
	"keeps its kind: a title that names another kind of document is refused. Anything without the document's shape is refused and nothing " +
	"is written. The result names item_key, revision, item_ref, a summary and what it was linked to."

// commitTyped records a typed document for one of the tools.
func commitTyped(ctx context.Context, b *Backend, a typedDocArgs, content twin.TypedDocument) (any, error) {
	w := twin.DocumentWrite{Title: a.Title, Text: a.Notes, Content: content, Concerns: a.Concerns, WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.Project = p
	doc, err := twin.RecordDocument(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	out := written(doc.Node, doc.Item)
	out["project_id"], out["document_type"] = p.ID, content.DocumentType()
	out["summary"], out["concerns"] = doc.Summary, doc.Concerns
	if _, buys := content.(twin.ProcurementRecord); buys {
		out["unmatched_mpns"] = doc.UnmatchedMPNs
	}
	return out, nil
}

type complianceChecklistArgs struct {
	typedDocArgs
	twin.ComplianceChecklist
}

func commitComplianceChecklistTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.commit_compliance_checklist", Name: "Commit a compliance checklist", Capability: "twin_write",
		Description: "Record a compliance checklist: the clauses of the standards the product must meet, each with standard, clause, status " +
			"(compliant, partial, non_compliant, open, not_applicable) and evidence. compliant, partial and not_applicable need evidence (what " +
			"shows it, or why the clause does not apply); a clause is assessed once. The summary counts each status and lists the unresolved " +
			"clauses (open, partial, non_compliant)." + typedDocWrite,
		Idempotent: true, Short: true, TimeoutSeconds: 30},
		func(ctx context.Context, b *Backend, a complianceChecklistArgs) (any, error) {
			return commitTyped(ctx, b, a.typedDocArgs, a.ComplianceChecklist)
		}, typedDocRules(
			adapters.At("scope", adapters.MaxLength(2000)),
			adapters.At("items", adapters.MinItems(1), adapters.MaxItems(1000)),
			adapters.At("items[].standard", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("items[].clause", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("items[].requirement", adapters.MaxLength(2000)),
			adapters.At("items[].status", adapters.Enum(twin.ComplianceStatuses...)),
			adapters.At("items[].evidence", adapters.MaxLength(2000)))...)
}

type designSketchArgs struct {
	typedDocArgs
	twin.DesignSketch
}

func commitDesignSketchTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.commit_design_sketch", Name: "Commit a design sketch", Capability: "twin_write",
		Description: "Record a design sketch: the intent behind a shape before it is modelled, as 2D entities on a plane (XY, XZ, YZ; " +
			"coordinates in unit, mm by default) or as a description, or both, with the parameters that drive it. Each entity has the points " +
			"its kind needs: point 1; line 2 distinct ends; arc 3 points not on one line (start, a point on it, end); circle a centre and " +
			"radius > 0; rectangle 2 opposite corners differing in x and y; polygon 3 or more; spline 2 or more. Parameters are named once " +
			"each, with a value and a unit that reads." + typedDocWrite,
		Idempotent: true, Short: true, TimeoutSeconds: 30},
		func(ctx context.Context, b *Backend, a designSketchArgs) (any, error) {
			return commitTyped(ctx, b, a.typedDocArgs, a.DesignSketch)
		}, typedDocRules(
			adapters.At("intent", adapters.MinLength(1), adapters.MaxLength(4000)),
			adapters.At("plane", adapters.Enum("XY", "XZ", "YZ")),
			adapters.At("unit", adapters.MinLength(1), adapters.MaxLength(20)),
			adapters.At("description", adapters.MaxLength(20000)),
			adapters.At("entities", adapters.MaxItems(1000)),
			adapters.At("entities[].kind", adapters.Enum(twin.SketchEntityKinds...)),
			adapters.At("entities[].points", adapters.MaxItems(1000)),
			adapters.At("entities[].radius", adapters.ExclusiveMinimum(0)),
			adapters.At("entities[].label", adapters.MaxLength(200)),
			adapters.At("parameters", adapters.MaxItems(200)),
			adapters.At("parameters[].name", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("parameters[].unit", adapters.MaxLength(20)),
			adapters.At("parameters[].note", adapters.MaxLength(2000)))...)
}

type hazardAnalysisArgs struct {
	typedDocArgs
	twin.HazardAnalysis
}

func commitHazardAnalysisTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.commit_hazard_analysis", Name: "Commit a hazard analysis", Capability: "twin_write",
		Description: "Record a hazard analysis: one row per hazard with its cause, severity (1 negligible to 5 catastrophic), likelihood " +
			"(1 improbable to 5 frequent) and mitigation, and optionally the residual severity and likelihood once mitigated (together, and " +
			"never worse than before). The risk index is severity x likelihood, 1 to 25: high from 15, medium from 8, low below. The summary " +
			"counts rows per risk class, names the highest-risk hazards and the rows whose residual risk is not assessed." + typedDocWrite,
		Idempotent: true, Short: true, TimeoutSeconds: 30},
		func(ctx context.Context, b *Backend, a hazardAnalysisArgs) (any, error) {
			return commitTyped(ctx, b, a.typedDocArgs, a.HazardAnalysis)
		}, typedDocRules(
			adapters.At("method", adapters.MaxLength(200)),
			adapters.At("hazards", adapters.MinItems(1), adapters.MaxItems(1000)),
			adapters.At("hazards[].hazard", adapters.MinLength(1), adapters.MaxLength(2000)),
			adapters.At("hazards[].cause", adapters.MinLength(1), adapters.MaxLength(2000)),
			adapters.At("hazards[].mitigation", adapters.MinLength(1), adapters.MaxLength(4000)),
			adapters.At("hazards[].severity", adapters.Minimum(twin.MinHazardRank), adapters.Maximum(twin.MaxHazardRank)),
			adapters.At("hazards[].likelihood", adapters.Minimum(twin.MinHazardRank), adapters.Maximum(twin.MaxHazardRank)),
			adapters.At("hazards[].residual_severity", adapters.Minimum(twin.MinHazardRank), adapters.Maximum(twin.MaxHazardRank)),
			adapters.At("hazards[].residual_likelihood", adapters.Minimum(twin.MinHazardRank), adapters.Maximum(twin.MaxHazardRank)))...)
}

type procurementRecordArgs struct {
	typedDocArgs
	twin.ProcurementRecord
}

func commitProcurementRecordTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.commit_procurement_record", Name: "Commit a procurement record", Capability: "twin_write",
		Description: "Record what is bought: one line per part per supplier (per purchase order) with mpn, supplier, quantity (>= 1), " +
			"unit_price (>= 0, in the record's currency, USD by default: one currency per record, there are no exchange rates) and " +
			"lead_time_days (>= 0), and po once an order is placed. Each line is linked CONCERNS to the project's BOM item with its MPN " +
			"(twin.record_component_selection); unmatched_mpns names the lines no BOM item has. The summary gives the total (sum of " +
			"quantity x unit_price), the longest lead time and its parts, and the lines without a po." + typedDocWrite,
		Idempotent: true, Short: true, TimeoutSeconds: 30},
		func(ctx context.Context, b *Backend, a procurementRecordArgs) (any, error) {
			return commitTyped(ctx, b, a.typedDocArgs, a.ProcurementRecord)
		}, typedDocRules(
			adapters.At("currency", adapters.Pattern("^[A-Za-z]{3}$")),
			adapters.At("lines", adapters.MinItems(1), adapters.MaxItems(1000)),
			adapters.At("lines[].mpn", adapters.MinLength(1), adapters.MaxLength(100)),
			adapters.At("lines[].supplier", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("lines[].quantity", adapters.Minimum(1), adapters.Maximum(100000000)),
			adapters.At("lines[].unit_price", adapters.Minimum(0)),
			adapters.At("lines[].lead_time_days", adapters.Minimum(0), adapters.Maximum(3650)),
			adapters.At("lines[].po", adapters.MaxLength(100)))...)
}

type technicalDrawingArgs struct {
	typedDocArgs
	twin.TechnicalDrawing
}

func commitTechnicalDrawingTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.commit_technical_drawing", Name: "Commit a technical drawing", Capability: "twin_write",
		Description: "Record a technical drawing of one part (part_ref, an item: linked CONCERNS, pinned to its revision): toleranced " +
			"dimensions (feature, nominal, unit a length or an angle, plus_tolerance and minus_tolerance as magnitudes >= 0 with a band > 0; " +
			"a length's lower limit above zero), geometric tolerances (characteristic, feature, tolerance > 0 in a length unit, datums: " +
			"required for orientation, location and runout, refused for the form tolerances flatness, straightness, circularity and " +
			"cylindricity; modifier MMC, LMC or RFS), the surface finish (Ra in um or uin) and the inspection requirements (characteristic, " +
			"method, sampling; at least one). The rendered text gives each dimension's limits; the summary names the tightest length " +
			"dimension." + typedDocWrite,
		Idempotent: true, Short: true, TimeoutSeconds: 30},
		func(ctx context.Context, b *Backend, a technicalDrawingArgs) (any, error) {
			return commitTyped(ctx, b, a.typedDocArgs, a.TechnicalDrawing)
		}, typedDocRules(
			adapters.At("part_ref", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("drawing_number", adapters.MaxLength(100)),
			adapters.At("general_tolerance", adapters.MaxLength(200)),
			adapters.At("dimensions", adapters.MinItems(1), adapters.MaxItems(1000)),
			adapters.At("dimensions[].feature", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("dimensions[].unit", adapters.MinLength(1), adapters.MaxLength(20)),
			adapters.At("dimensions[].plus_tolerance", adapters.Minimum(0)),
			adapters.At("dimensions[].minus_tolerance", adapters.Minimum(0)),
			adapters.At("gdt", adapters.MaxItems(500)),
			adapters.At("gdt[].characteristic", adapters.Enum(twin.GDTCharacteristics()...)),
			adapters.At("gdt[].feature", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("gdt[].tolerance", adapters.ExclusiveMinimum(0)),
			adapters.At("gdt[].unit", adapters.MinLength(1), adapters.MaxLength(20)),
			adapters.At("gdt[].datums", adapters.MaxItems(3)),
			adapters.At("gdt[].datums[]", adapters.MinLength(1), adapters.MaxLength(5)),
			adapters.At("gdt[].modifier", adapters.Enum("MMC", "LMC", "RFS")),
			adapters.At("surface_finish.ra", adapters.ExclusiveMinimum(0)),
			adapters.At("surface_finish.unit", adapters.Enum("um", "uin")),
			adapters.At("surface_finish.surfaces", adapters.MaxLength(200)),
			adapters.At("inspection", adapters.MinItems(1), adapters.MaxItems(1000)),
			adapters.At("inspection[].characteristic", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("inspection[].method", adapters.MinLength(1), adapters.MaxLength(200)),
			adapters.At("inspection[].sampling", adapters.MaxLength(200)))...)
}
