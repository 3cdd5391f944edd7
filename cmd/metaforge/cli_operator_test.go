package main

import "testing"

// cliOperator readies a CLI test to talk to a serve as its operator: the
// variables that would point the CLI at another server or credential are
// cleared, and a data dir holds a fresh operator token. It returns the dir
// (for --data-dir) and the token (for the serve to accept).
func cliOperator(t *testing.T) (dataDir, token string) {
	t.Helper()
	for _, k := range []string{"METAFORGE_TOKEN", "METAFORGE_MCP_API_KEY", "METAFORGE_URL", "METAFORGE_GATEWAY_URL"} {
		t.Setenv(k, "")
	}
	dataDir = t.TempDir()
	token, _, err := writeOperatorToken(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return dataDir, token
}
