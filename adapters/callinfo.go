package adapters

import "context"

// CallInfo is what an adapter may know about the call it serves: its
// identity (the idempotency key of any write it makes), the MCP session it
// came from (which project that session is bound to), and who asked.
type CallInfo struct {
	CallID    string
	SessionID string
	Caller    string
	Client    string
	// Requester is the verified identity that asked ("" when none); a
	// tool that holds something for approval passes it on, so its
	// requester cannot approve it.
	Requester string
	// ApprovedBy is who approved a held call ("" for a call never held),
	// and ApproverVerified whether that name was checked: a human-authority
	// tool records them.
	ApprovedBy       string
	ApproverVerified bool
}

type callInfoKey struct{}

// WithCallInfo returns a context carrying the call's info.
func WithCallInfo(ctx context.Context, ci CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, ci)
}

// CallInfoFrom returns the call's info; the zero value outside a call.
func CallInfoFrom(ctx context.Context) CallInfo {
	ci, _ := ctx.Value(callInfoKey{}).(CallInfo)
	return ci
}
