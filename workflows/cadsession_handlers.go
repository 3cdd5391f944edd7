package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"
)

// handle registers the session's query and Updates. The validators refuse
// an operation on a session that is closing or closed before anything is
// written to its history.
func (s *cadRun) handle(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, CadSessionStateQuery, func() (CadSessionState, error) { return s.st, nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, CadEditUpdate, s.apply,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, e CadEdit) error {
			if e.Op == "" {
				return fmt.Errorf("an edit names its op")
			}
			return s.open()
		}}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, CloseCadSessionUpdate,
		func(ctx workflow.Context, r CloseCadSessionRequest) (CadSessionState, error) {
			s.closeAsked = &r
			err := workflow.Await(ctx, func() bool { return s.st.Status == CadSessionClosed })
			return s.st, err
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r CloseCadSessionRequest) error { return s.open() }})
}

// open refuses an operation once the session is closing.
func (s *cadRun) open() error {
	status := s.st.Status
	if status == CadSessionOpen && s.closeAsked != nil {
		status = CadSessionClosing
	}
	if status != CadSessionOpen {
		return fmt.Errorf("CAD session %s is %s; open a new one with freecad.open_session", s.in.SessionID, status)
	}
	return nil
}
