package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/metaforge/metaforge/adapters/session"
	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/twin"
)

// sessionNarrative keeps sessions' narratives on the ledger
// (session.log_event, session.complete): the session adapter declares
// what it needs (session.Narrative), the ledger knows nothing of adapters
// or the twin, and this wiring joins them, turning the ledger's
// SessionEndedError into the refusal the tool answers with.
type sessionNarrative struct{ ledger *ledger.Ledger }

var _ session.Narrative = sessionNarrative{}

// KeptIn implements session.Narrative.
func (sessionNarrative) KeptIn() string { return "ledger" }

// LogEvent implements session.Narrative.
func (n sessionNarrative) LogEvent(ctx context.Context, e twin.SessionEvent) (twin.SessionEvent, error) {
	got, err := n.ledger.LogSessionEvent(ctx, ledger.SessionEvent{SessionID: e.SessionID, ProjectID: e.ProjectID, CallID: e.CallID,
		Kind: e.Kind, Text: e.Text, Refs: e.Refs, Actor: e.Actor, At: e.At})
	if err != nil {
		return twin.SessionEvent{}, refuseEnded(err)
	}
	return twin.SessionEvent{SessionID: got.SessionID, ProjectID: got.ProjectID, Kind: got.Kind, Text: got.Text, Refs: got.Refs,
		Actor: got.Actor, At: got.At, ID: ledgerID(got.ID), CallID: got.CallID}, nil
}

// Complete implements session.Narrative.
func (n sessionNarrative) Complete(ctx context.Context, e twin.SessionEnd) (twin.SessionEnd, error) {
	got, err := n.ledger.CompleteSession(ctx, ledger.SessionEnd{SessionID: e.SessionID, ProjectID: e.ProjectID, Status: e.Status,
		Summary: e.Summary, By: e.Actor, At: e.At, CallID: e.CallID})
	if err != nil {
		return twin.SessionEnd{}, refuseEnded(err)
	}
	return twin.SessionEnd{SessionID: got.SessionID, ProjectID: got.ProjectID, Status: got.Status, Summary: got.Summary, Actor: got.By,
		At: got.At, Events: int(got.Events), CallID: got.CallID}, nil
}

// refuseEnded makes the ledger's "this session has ended" a refusal in its
// own words; any other ledger error stays what it is.
func refuseEnded(err error) error {
	var ended *ledger.SessionEndedError
	if errors.As(err, &ended) {
		return twin.Refusef("%s", ended.Error())
	}
	return err
}

// ledgerID names a ledger row as an event id.
func ledgerID(id int64) string { return "ledger-event-" + strconv.FormatInt(id, 10) }
