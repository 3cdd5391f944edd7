package runs

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// ProjectDetail is GET /v1/projects/{id}: the project at a glance, its
// work-product tree (each item at KEY@head) and its evidence, each record
// fresh or stale.
type ProjectDetail struct {
	ProjectGlance
	// Counts are its nodes by type (twin.CountByType).
	Counts   map[string]int        `json:"counts"`
	Tree     []twin.TreeBranch     `json:"tree"`
	Evidence []twin.EvidenceRecord `json:"evidence"`
	// Fresh and Stale count the evidence by freshness.
	Fresh int `json:"fresh_evidence"`
	Stale int `json:"stale_evidence"`
	// Notes say what could not be counted now.
	Notes []string `json:"notes,omitempty"`
}

func (h Projects) get(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, nil, "GET /v1/projects/{id} takes no parameters") {
		return
	}
	ctx := r.Context()
	p, err := h.Twin.GetProject(ctx, r.PathValue("id"))
	if err != nil {
		httpjson.Error(w, twinStatus(err), projectMissing(r.PathValue("id"), err))
		return
	}
	notes := map[string]bool{}
	d := ProjectDetail{}
	if d.ProjectGlance, err = h.glance(ctx, p, notes); err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	if d.Counts, err = twin.CountByType(ctx, h.Twin, p.ID); err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	if d.Tree, err = twin.WorkProductTree(ctx, h.Twin, p.ID); err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	if d.Evidence, err = twin.EvidenceRecords(ctx, h.Twin, p.ID); err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	for _, e := range d.Evidence {
		if e.Freshness == twin.EvidenceStale {
			d.Stale++
		} else {
			d.Fresh++
		}
	}
	d.Notes = slices.Sorted(maps.Keys(notes))
	httpjson.Write(w, http.StatusOK, d)
}

func (h Projects) history(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, nil, "GET /v1/projects/{id}/items/{key}/history takes no parameters: the item is KEY (or KEY@n) in the path") {
		return
	}
	ctx := r.Context()
	p, err := h.Twin.GetProject(ctx, r.PathValue("id"))
	if err != nil {
		httpjson.Error(w, twinStatus(err), projectMissing(r.PathValue("id"), err))
		return
	}
	hist, err := twin.ReadItemHistory(ctx, h.Twin, p.ID, r.PathValue("key"))
	if err != nil {
		status := twinStatus(err)
		if errors.Is(err, twin.ErrInvalid) {
			status = http.StatusBadRequest
		}
		httpjson.Error(w, status, err.Error()+"; the project's items are listed by GET /v1/projects/"+p.ID)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"project_id": p.ID, "item": hist.Item, "head_ref": hist.HeadRef,
		"revisions": hist.Revisions})
}

// projectMissing says what to do about a project that cannot be read.
func projectMissing(id string, err error) string {
	if errors.Is(err, twin.ErrNotFound) {
		return fmt.Sprintf("no project %q: GET /v1/projects lists the projects (project.create makes one)", id)
	}
	return err.Error()
}
