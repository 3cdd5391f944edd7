package mcpserver

import (
	"context"
	"strconv"
	"sync"
)

// openAsks are the questions put to clients and not yet answered, per
// session, so the server can withdraw them when the client goes away (its
// POST or GET stream closes, or it ends the session with DELETE /mcp): the
// SDK does not tie a tool handler to its HTTP request, and a question asked
// into a closed connection would otherwise hold the call to its window.
type openAsks struct {
	mu   sync.Mutex
	next int
	asks map[string]map[int]openAsk
}

type openAsk struct {
	withdraw context.CancelFunc
	onGet    bool // asked down the session's GET /mcp stream
}

// add records a question; the returned func forgets it.
func (o *openAsks) add(session string, a openAsk) func() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.asks == nil {
		o.asks = map[string]map[int]openAsk{}
	}
	if o.asks[session] == nil {
		o.asks[session] = map[int]openAsk{}
	}
	o.next++
	id := o.next
	o.asks[session][id] = a
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		delete(o.asks[session], id)
		if len(o.asks[session]) == 0 {
			delete(o.asks, session)
		}
	}
}

// any says whether a question is open for the session.
func (o *openAsks) any(session string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.asks[session]) > 0
}

// withdrawAll withdraws the session's questions (only those asked down its
// GET stream when onlyGet).
func (o *openAsks) withdrawAll(session string, onlyGet bool) {
	o.mu.Lock()
	var cancels []context.CancelFunc
	for _, a := range o.asks[session] {
		if a.onGet || !onlyGet {
			cancels = append(cancels, a.withdraw)
		}
	}
	o.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// postHeader tags a POST /mcp with an id the tool handler can read back
// (the SDK passes the request's headers along), so a question asked on that
// POST's stream is withdrawn when its connection closes.
const postHeader = "X-Metaforge-Post"

// postContexts are the contexts of the POSTs being served, by tag.
type postContexts struct {
	mu   sync.Mutex
	next uint64
	ctxs map[string]context.Context
}

func (p *postContexts) register(ctx context.Context) (string, func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctxs == nil {
		p.ctxs = map[string]context.Context{}
	}
	p.next++
	id := "p" + strconv.FormatUint(p.next, 10)
	p.ctxs[id] = ctx
	return id, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.ctxs, id)
	}
}

func (p *postContexts) get(id string) context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ctxs[id]
}
