package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"
)

// handle registers the change's query and its Updates. Each Update's
// validator refuses a step the change's state does not allow, saying why,
// before anything is written to its history; an accepted step is done by
// the main loop, and the Update answers with the state it left.
func (c *changeRun) handle(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, ChangeStateQuery, func() (ChangeState, error) { return c.st, nil }); err != nil {
		return err
	}
	updates := []struct {
		name     string
		validate func(ChangeAction) error
		ask      func(ChangeAction)
		done     func() bool
	}{
		{AnalyzeChangeUpdate, func(a ChangeAction) error { return c.allowed(ChangeProposed, "analysed") },
			func(ChangeAction) { c.analyzeAsked = true }, func() bool { return c.st.Status != ChangeProposed && c.st.Busy == "" }},
		{CommitChangeUpdate, func(a ChangeAction) error { return c.allowed(ChangeApproved, "committed") },
			func(a ChangeAction) { c.commitAsked = &a }, func() bool { return c.commitAsked == nil && c.st.Busy == "" }},
		{RevalidateChangeUpdate, c.validateRevalidation,
			// Answers once the run is under way: re-running the
			// recipes may take minutes of solver time.
			func(a ChangeAction) { c.revalidateAsked = &a }, func() bool { return c.revalidateAsked == nil }},
		{RollBackChangeUpdate, c.validateRollBack,
			func(a ChangeAction) { c.rollBackAsked = &a }, func() bool { return c.st.Status == ChangeRolledBack && c.rollBackAsked == nil }},
	}
	for _, u := range updates {
		err := workflow.SetUpdateHandlerWithOptions(ctx, u.name, func(ctx workflow.Context, a ChangeAction) (ChangeState, error) {
			u.ask(a)
			err := workflow.Await(ctx, u.done)
			return c.st, err
		}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, a ChangeAction) error { return u.validate(a) }})
		if err != nil {
			return err
		}
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, ReviewChangeUpdate, func(ctx workflow.Context, d ChangeDecision) (ChangeState, error) {
		d.At = workflow.Now(ctx)
		c.st.Review = &d
		// No step may start while the decision is being recorded.
		c.st.Busy = "recording its review"
		defer func() { c.st.Busy = "" }()
		status, verb := ChangeRejected, "rejected"
		if d.Approve {
			status, verb = ChangeApproved, "approved"
		}
		note := verb + " by " + d.By
		if d.Comment != "" {
			note += ": " + d.Comment
		}
		err := c.transition(ctx, status, d.By, note, map[string]any{"approval_level": c.st.Analysis.ApprovalLevel})
		return c.st, err
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, d ChangeDecision) error { return c.validateReview(d) }})
}

// allowed refuses a step unless the change is in the state it needs and
// no other step is under way.
func (c *changeRun) allowed(want, what string) error {
	if c.st.Busy != "" {
		return fmt.Errorf("engineering change %s is %s; ask again when that step ends", c.in.ChangeID, c.st.Busy)
	}
	if c.st.Status != want || (want == ChangeProposed && c.analyzeAsked) || (want == ChangeApproved && c.commitAsked != nil) {
		return fmt.Errorf("engineering change %s is %s, so it cannot be %s now (only a %s change can)", c.in.ChangeID, c.st.Status, what, want)
	}
	return nil
}

// validateReview admits a decision by a verified person other than the
// change's creator, on a change that waits for review.
func (c *changeRun) validateReview(d ChangeDecision) error {
	if err := c.allowed(ChangeReadyForReview, "reviewed"); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(d.By) == "":
		return fmt.Errorf("a review must name who decided: a verified person reviews an engineering change")
	case !d.Verified:
		return fmt.Errorf("%s is not a verified identity: an engineering change is decided by a person whose identity was checked (the dashboard, the CLI with the operator token, or an authenticated approver)", d.By)
	case d.By == c.in.CreatedBy:
		return fmt.Errorf("self-approval refused: %s proposed engineering change %s, so a different verified person must review it", d.By, c.in.ChangeID)
	}
	return nil
}

// validateRevalidation admits a revalidation of a committed change that
// has not been fully revalidated.
func (c *changeRun) validateRevalidation(a ChangeAction) error {
	if err := c.allowed(ChangeCommitted, "revalidated"); err != nil {
		return err
	}
	if c.revalidateAsked != nil || c.rollBackAsked != nil {
		return fmt.Errorf("engineering change %s already has a step under way", c.in.ChangeID)
	}
	if rv := c.st.Revalidation; rv != nil && rv.Status == "done" {
		return fmt.Errorf("engineering change %s was already revalidated by %s: every replayable evidence was re-run", c.in.ChangeID, rv.By)
	}
	return nil
}

// validateRollBack admits a roll-back label on a committed change, with
// who and why.
func (c *changeRun) validateRollBack(a ChangeAction) error {
	if err := c.allowed(ChangeCommitted, "labelled rolled back"); err != nil {
		return err
	}
	if c.revalidateAsked != nil || c.rollBackAsked != nil {
		return fmt.Errorf("engineering change %s already has a step under way", c.in.ChangeID)
	}
	if strings.TrimSpace(a.By) == "" || strings.TrimSpace(a.Reason) == "" {
		return fmt.Errorf("a roll-back label needs who (by) and why (reason): it is a record, not an undo")
	}
	return nil
}
