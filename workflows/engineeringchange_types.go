package workflows

import (
	"encoding/json"
	"time"
)

// EngineeringChangeWorkflowID is an engineering change's workflow: one per
// change, findable by its id.
func EngineeringChangeWorkflowID(changeID string) string { return "engineering-change-" + changeID }

// An engineering change's states, in the order a change moves through
// them (spec 003's Engineering Change Transaction).
const (
	ChangeProposed       = "PROPOSED"
	ChangeAnalyzing      = "ANALYZING"
	ChangeReadyForReview = "READY_FOR_REVIEW"
	ChangeApproved       = "APPROVED"
	ChangeRejected       = "REJECTED"
	ChangeCommitted      = "COMMITTED"
	ChangeRolledBack     = "ROLLED_BACK"
)

// The EngineeringChange workflow's query and updates.
const (
	ChangeStateQuery       = "change_state"
	AnalyzeChangeUpdate    = "analyze"
	ReviewChangeUpdate     = "review"
	CommitChangeUpdate     = "commit"
	RevalidateChangeUpdate = "revalidate"
	RollBackChangeUpdate   = "roll_back"
)

// The EngineeringChange workflow's activities.
const (
	AnalyzeChangeActivity       = "AnalyzeChange"
	CommitChangeActivity        = "CommitChange"
	RecordChangeEventActivity   = "RecordChangeEvent"
	PrepareReplayCallActivity   = "PrepareReplayCall"
	ConfirmRevalidationActivity = "ConfirmRevalidation"
)

// DefaultRollbackWindow is how long a committed change stays open to a
// revalidation or a roll-back label unless the input says otherwise.
const DefaultRollbackWindow = 30 * 24 * time.Hour

// ChangePatchOp changes one item revision (twin.PatchOp's shape): Ref is
// the KEY@n the change was written against.
type ChangePatchOp struct {
	Ref   string         `json:"ref"`
	Set   map[string]any `json:"set,omitempty"`
	Unset []string       `json:"unset,omitempty"`
	Name  string         `json:"name,omitempty"`
}

// EngineeringChangeInput starts a change.
type EngineeringChangeInput struct {
	ChangeID  string          `json:"change_id"`
	ProjectID string          `json:"project_id"`
	Title     string          `json:"title"`
	Reason    string          `json:"reason"`
	CreatedBy string          `json:"created_by"`
	Patch     []ChangePatchOp `json:"patch"`
	// AnalyzeNow analyses at once (twin.propose_change), instead of
	// waiting for the analyze Update.
	AnalyzeNow            bool `json:"analyze_now,omitempty"`
	RollbackWindowSeconds int  `json:"rollback_window_seconds,omitempty"`
}

// ChangePlanEntry is one stale evidence (or other reached node) and what
// revalidation does about it: replay its recipe, or leave it to a person.
type ChangePlanEntry struct {
	EvidenceID string         `json:"evidence_id"`
	Name       string         `json:"name"`
	Metric     string         `json:"metric,omitempty"`
	PinnedTo   []string       `json:"pinned_to,omitempty"`
	ToolID     string         `json:"tool_id,omitempty"`
	Args       map[string]any `json:"args,omitempty"`
	Reason     string         `json:"reason"`
}

// ChangeAnalysis is what the patch reaches, as the analysis found it.
type ChangeAnalysis struct {
	// Patch is the patch analysed: re-pointed at the current heads when
	// a commit found its revisions moved.
	Patch              []ChangePatchOp   `json:"patch"`
	Patched            []string          `json:"patched"`
	Stale              []ChangePlanEntry `json:"stale"`
	Replay             []ChangePlanEntry `json:"replay"`
	ManualReviewNeeded []ChangePlanEntry `json:"manual_review_needed"`
	ApprovalLevel      string            `json:"approval_level"`
	ApprovalReason     string            `json:"approval_reason"`
	// Impact is the full transitive impact (twin.ChangeImpact), for
	// people to read.
	Impact json.RawMessage `json:"impact,omitempty"`
}

// AnalyzeChangeRequest asks for a patch's impact; Rebase first re-points
// the patch at the current heads.
type AnalyzeChangeRequest struct {
	ChangeID  string          `json:"change_id"`
	ProjectID string          `json:"project_id"`
	Patch     []ChangePatchOp `json:"patch"`
	Rebase    bool            `json:"rebase,omitempty"`
}

// ChangeDecision is a person's review of a change.
type ChangeDecision struct {
	Approve  bool      `json:"approve"`
	By       string    `json:"by"`
	Verified bool      `json:"verified"`
	Comment  string    `json:"comment,omitempty"`
	At       time.Time `json:"at"`
}

// ChangeAction is who asks for a step (analyse, commit, revalidate, roll
// back) and why.
type ChangeAction struct {
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
}

// CommitChangeRequest applies an approved change's patch.
type CommitChangeRequest struct {
	ChangeID       string          `json:"change_id"`
	ProjectID      string          `json:"project_id"`
	Patch          []ChangePatchOp `json:"patch"`
	Reason         string          `json:"reason"`
	Author         string          `json:"author"`
	ApprovedBy     string          `json:"approved_by"`
	IdempotencyKey string          `json:"idempotency_key"`
}

// MovedRef is a revision and where its item's head is now (a commit's
// From -> To, or a conflict's pinned -> head).
type MovedRef struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// CommitChangeResult is a commit: written, or aborted whole because the
// revisions it was analysed on moved.
type CommitChangeResult struct {
	Committed bool       `json:"committed"`
	Revisions []MovedRef `json:"revisions,omitempty"`
	Moved     []MovedRef `json:"moved,omitempty"`
}

// ChangeConflict is one aborted commit.
type ChangeConflict struct {
	Moved []MovedRef `json:"moved"`
	At    time.Time  `json:"at"`
}

// ReplayCallRequest prepares the child call that re-runs one stale
// evidence's recipe on the committed design.
type ReplayCallRequest struct {
	ChangeID  string          `json:"change_id"`
	ProjectID string          `json:"project_id"`
	Entry     ChangePlanEntry `json:"entry"`
	Moved     []MovedRef      `json:"moved"`
}

// ConfirmRevalidationRequest finds the fresh evidence that supersedes a
// stale one.
type ConfirmRevalidationRequest struct {
	ProjectID       string `json:"project_id"`
	StaleEvidenceID string `json:"stale_evidence_id"`
}

// RevalidatedEntry is what became of one stale evidence.
type RevalidatedEntry struct {
	EvidenceID      string `json:"evidence_id"`
	Name            string `json:"name"`
	CallID          string `json:"call_id,omitempty"`
	Status          string `json:"status"` // revalidated, failed
	FreshEvidenceID string `json:"fresh_evidence_id,omitempty"`
	Detail          string `json:"detail,omitempty"`
}

// Revalidation is the plan's execution.
type Revalidation struct {
	Status             string             `json:"status"` // running, done, partial
	By                 string             `json:"by"`
	Replayed           []RevalidatedEntry `json:"replayed"`
	ManualReviewNeeded []ChangePlanEntry  `json:"manual_review_needed"`
}

// ChangeEvent is one step of a change's history, recorded in the twin.
type ChangeEvent struct {
	ChangeID  string         `json:"change_id"`
	ProjectID string         `json:"project_id"`
	Seq       int            `json:"seq"`
	State     string         `json:"state"`
	Actor     string         `json:"actor"`
	Note      string         `json:"note"`
	At        time.Time      `json:"at"`
	Data      map[string]any `json:"data,omitempty"`
}

// ChangeState is an engineering change as it stands.
type ChangeState struct {
	ChangeID     string              `json:"change_id"`
	ProjectID    string              `json:"project_id"`
	Title        string              `json:"title"`
	Reason       string              `json:"reason"`
	CreatedBy    string              `json:"created_by"`
	Status       string              `json:"status"`
	Patch        []ChangePatchOp     `json:"patch"`
	Analysis     *ChangeAnalysis     `json:"analysis,omitempty"`
	Review       *ChangeDecision     `json:"review,omitempty"`
	Commit       *CommitChangeResult `json:"commit,omitempty"`
	Conflicts    []ChangeConflict    `json:"conflicts,omitempty"`
	Revalidation *Revalidation       `json:"revalidation,omitempty"`
	RollBack     *ChangeAction       `json:"roll_back,omitempty"`
	// Busy names the step under way (analysing, committing,
	// revalidating); a second step waits for it.
	Busy    string        `json:"busy,omitempty"`
	History []ChangeEvent `json:"history"`
}
