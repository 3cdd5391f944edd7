package runs

import (
	"fmt"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// WorkProducts describes imports of geometry files as the workflow that
// runs them (ImportWorkProduct): it backs twin.import_work_product, whose
// calls run it as their child.
type WorkProducts struct{}

var _ twinadapter.ImportEngine = WorkProducts{}

// ImportProcess is workflow import-work-product-<callId>.
func (WorkProducts) ImportProcess(c twin.ImportCall) (adapters.Process, error) {
	in := workflows.ImportRequest{CallID: c.CallID, ProjectID: c.ProjectID, Name: c.Name, SourceFile: c.SourceFile, File: c.File,
		SHA256: c.SHA256, Format: string(c.Format), Material: c.Material, ItemKey: c.Info.ItemKey, Supersedes: c.Info.Supersedes,
		ChangeReason: c.Info.ChangeReason, Author: c.Info.Author}
	return process("ImportWorkProduct", workflows.ImportWorkProductWorkflowID(c.CallID), in, c.ProjectID,
		fmt.Sprintf("import %s as %s", filepath.Base(c.SourceFile), c.Name))
}
