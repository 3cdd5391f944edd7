package mcpserver

// Caller classes (spec 003 "Approval-held writes"). The transport declares
// which one a connection is; the default is the least trusted.
const (
	CallerLocal     = "local"     // stdio: the engineer at the keyboard
	CallerRemote    = "remote"    // HTTP with a verified identity
	CallerUntrusted = "untrusted" // HTTP with no identity
)
