package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/workflows"
)

// personQuestionWindow bounds how long a tool's question waits in the
// client's chat: the question is a convenience, the decision it informs
// has its own window.
const personQuestionWindow = 10 * time.Minute

// askPerson handles a result that asks a question of the person in the
// client's chat (adapters.AskPerson): when the client can be asked, the
// server asks it, passes an accepted answer to the tool that records it,
// and reports what happened as the result's chat_answer. The question
// itself never reaches the client as data.
func (s *Server) askPerson(ctx context.Context, req *mcp.CallToolRequest, in workflows.ToolCallInput, res workflows.ToolCallResult) workflows.ToolCallResult {
	if res.Status != workflows.StatusSuccess {
		return res
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(res.Data, &data) != nil {
		return res
	}
	raw, ok := data[adapters.AskPersonKey]
	if !ok {
		return res
	}
	delete(data, adapters.AskPersonKey)
	var q adapters.AskPerson
	answer := map[string]any{"asked": false}
	switch {
	case json.Unmarshal(raw, &q) != nil:
		answer["reason"] = "the tool's question could not be read"
	case req == nil || !s.canElicit(req):
		answer["reason"] = "this client cannot be asked in its chat (it did not declare elicitation); decide where the result says"
	default:
		answer = s.putQuestion(ctx, req, in, q)
	}
	data["chat_answer"], _ = json.Marshal(answer)
	res.Data, _ = json.Marshal(data)
	return res
}

// putQuestion asks the question and records an accepted answer with the
// question's answer tool, run as a call of its own.
func (s *Server) putQuestion(ctx context.Context, req *mcp.CallToolRequest, in workflows.ToolCallInput, q adapters.AskPerson) map[string]any {
	var schema map[string]any
	_ = json.Unmarshal(q.Schema, &schema)
	askCtx, cancel := context.WithTimeout(ctx, personQuestionWindow)
	defer cancel()
	forget := s.asks.add(req.Session.ID(), openAsk{withdraw: cancel})
	er, err := req.Session.Elicit(askCtx, &mcp.ElicitParams{Message: q.Message, RequestedSchema: schema})
	forget()
	if err != nil {
		return map[string]any{"asked": true, "action": "none", "detail": "no answer came (" + err.Error() + "); nothing was recorded"}
	}
	out := map[string]any{"asked": true, "action": er.Action}
	if er.Action != "accept" {
		out["detail"] = "the question was " + er.Action + "d; nothing was recorded and nothing was decided"
		return out
	}
	out["content"] = er.Content
	args := map[string]any{}
	for k, v := range q.AnswerArguments {
		args[k] = v
	}
	args["answer"] = er.Content
	rawArgs, _ := json.Marshal(args)
	next, rpcErr := s.prepareCall(q.AnswerTool, rawArgs, 0, in.Client, in.SessionID)
	if rpcErr != nil {
		out["recorded"] = false
		out["error"] = rpcErr.Message
		return out
	}
	next.Caller = in.Caller
	rec, rpcErr := s.dispatch(ctx, req, next)
	switch {
	case rpcErr != nil:
		out["recorded"], out["error"] = false, rpcErr.Message
	case rec.Status != workflows.StatusSuccess:
		out["recorded"], out["error"] = false, rec.Error.Details
	default:
		out["recorded"], out["result"] = true, rec.Data
	}
	return out
}
