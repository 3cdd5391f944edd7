package ledger

// Stamp says who made a call and with what (caller class, identity,
// client). It keeps what the server established apart from what the client
// asserted, so an assertion is never read later as something checked.
type Stamp struct {
	// Actor is who the call context says made the call.
	Actor string `json:"actor"`
	// ActorVerified is true only when an OAuth token established Actor; a
	// shared API key or an X-MetaForge-Actor header does not.
	ActorVerified bool `json:"actor_verified"`
	// Client is what the client said it is in the initialize handshake;
	// nil, and absent from JSON, when it never said.
	Client *Client `json:"client,omitempty"`
	// Claimed is what the client asserted about the call and nobody can
	// check; nil when it asserted nothing.
	Claimed *Claimed `json:"claimed,omitempty"`
}

// Client is the clientInfo of the initialize handshake.
type Client struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Claimed holds the client's assertions: the model, from the request's
// _meta.model, which nothing on the MCP wire lets the server know.
type Claimed struct {
	Model string `json:"model"`
}

// normalized drops an empty Client or Claimed: a client that sent an
// empty clientInfo did not identify itself, and "absent" must not be
// recorded as "empty".
func (s Stamp) normalized() Stamp {
	if s.Client != nil && *s.Client == (Client{}) {
		s.Client = nil
	}
	if s.Claimed != nil && *s.Claimed == (Claimed{}) {
		s.Claimed = nil
	}
	return s
}
