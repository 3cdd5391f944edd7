package adapters

import "encoding/json"

// AskPersonKey is the field of a tool's result that asks the MCP server to
// put a question to the person in the client's chat (elicitation). The
// server asks only when the client can be asked; the answer is passed to
// AnswerTool as a call of its own, and the question is taken out of the
// result the client sees. A tool never relies on the answer: a client that
// cannot be asked gets the result as it is.
const AskPersonKey = "ask_person"

// AskPerson is the question, and the tool that records its answer.
type AskPerson struct {
	Message string `json:"message"`
	// Schema is the elicitation's requested schema: a flat object of
	// primitive properties.
	Schema json.RawMessage `json:"schema"`
	// AnswerTool receives AnswerArguments plus "answer": the content the
	// person accepted.
	AnswerTool      string         `json:"answer_tool"`
	AnswerArguments map[string]any `json:"answer_arguments"`
}
