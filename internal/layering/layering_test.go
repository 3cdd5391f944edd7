package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/metaforge/metaforge/"

// goList runs go list in the repository and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// forbidden names the packages among deps that a rule forbids: a rule is
// a package and those below it, or, ending in "/", only those below it.
func forbidden(deps []string, rules ...string) []string {
	var bad []string
	for _, d := range deps {
		for _, r := range rules {
			below := strings.HasPrefix(d, strings.TrimSuffix(r, "/")+"/")
			if below || (!strings.HasSuffix(r, "/") && (d == r || strings.HasPrefix(d, r+"."))) {
				bad = append(bad, d)
				break
			}
		}
	}
	return bad
}

// Adapters know nothing of Temporal or of what runs them: a tool that
// starts or steers a durable process declares the interface it needs.
func TestAdaptersKnowNoTemporalNorTheServer(t *testing.T) {
	deps := goList(t, "-deps", "./adapters/...")
	if bad := forbidden(deps, "go.temporal.io", module+"mcpserver", module+"workflows", module+"activities",
		module+"runs", module+"worker"); len(bad) > 0 {
		t.Fatalf("adapters/ depends on %s", strings.Join(bad, ", "))
	}
}

// The twin's rules know nothing of MCP, Temporal or the adapters.
func TestTwinKnowsNoMCPNorTemporal(t *testing.T) {
	deps := goList(t, "-deps", "./twin/...")
	if bad := forbidden(deps, "go.temporal.io", "github.com/modelcontextprotocol", module+"adapters", module+"mcpserver",
		module+"workflows", module+"activities", module+"runs"); len(bad) > 0 {
		t.Fatalf("twin/ depends on %s", strings.Join(bad, ", "))
	}
}

// Lower packages do not import higher ones: the activities wrap the
// adapter contract, not an adapter; the ledger and runs know no MCP server.
func TestLowerPackagesImportNoHigherOnes(t *testing.T) {
	for pkg, higher := range map[string][]string{
		"./activities": {module + "adapters/", module + "mcpserver", module + "runs", module + "worker"},
		"./workflows":  {module + "adapters", module + "activities", module + "mcpserver", module + "runs", module + "worker"},
		"./runs":       {module + "mcpserver", module + "worker", module + "activities"},
		"./ledger":     {module + "adapters"},
	} {
		imports := goList(t, "-f", `{{join .Imports " "}}`, pkg)
		if bad := forbidden(imports, higher...); len(bad) > 0 {
			t.Errorf("%s imports %s", pkg, strings.Join(bad, ", "))
		}
	}
}

// workflowStarts are the Temporal client calls that start a workflow or
// wait on one.
var workflowStarts = map[string]bool{"ExecuteWorkflow": true, "SignalWithStartWorkflow": true, "GetWorkflow": true}

// No activity starts a workflow or waits on one: a tool whose work is a
// workflow hands it to its call's workflow as a child. The activities
// import no Temporal client; the code they reach that talks to Temporal
// (runs, behind the adapters' interfaces) starts a workflow only in
// Service.Start, which is for clients outside any workflow.
func TestNoActivityStartsOrAwaitsAWorkflow(t *testing.T) {
	for _, imp := range goList(t, "-f", `{{join .Imports " "}}`, "./activities") {
		if imp == "go.temporal.io/sdk/client" {
			t.Fatal("activities/ imports the Temporal client")
		}
	}
	for _, dir := range []string{"activities", "runs"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok || !workflowStarts[sel.Sel.Name] {
						return true
					}
					if dir == "runs" && fn.Name.Name == "Start" && fn.Recv != nil {
						return true
					}
					t.Errorf("%s: %s calls %s: a workflow is started as a child of the call's workflow, not from activity code",
						filepath.Join(dir, filepath.Base(path)), fn.Name.Name, sel.Sel.Name)
					return true
				})
			}
		}
	}
}
