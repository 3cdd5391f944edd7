package twin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/twin"
)

// LoadCaseTargets resolves the project's ready load cases for an analysis
// run now. A case that cannot be solved (a draft, a part with no STEP) is
// skipped with the reason, so the phase says why it did not run.
func (b *Backend) LoadCaseTargets(ctx context.Context, projectID string) ([]twin.LoadCaseTarget, []string, error) {
	cases, err := twin.LoadCases(ctx, b.Store, projectID)
	if err != nil {
		return nil, nil, err
	}
	var out []twin.LoadCaseTarget
	var skipped []string
	for _, c := range cases {
		if c.Status == twin.LoadCaseDraft {
			skipped = append(skipped, fmt.Sprintf("%s (%s) is a draft: record it with status ready once its faces are known", c.Name, c.Ref))
			continue
		}
		part, err := twin.ResolveRef(ctx, b.Store, projectID, c.Part)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (%s): part %s: %v", c.Name, c.Ref, c.Part, err))
			continue
		}
		key, _ := part.Properties["step_blob"].(string)
		sha, _ := part.Properties["step_sha256"].(string)
		if key == "" || sha == "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s): %s has no STEP: commit its geometry with twin.commit_geometry", c.Name, c.Ref, part.Ref()))
			continue
		}
		file, err := b.stepInWorkspace(key, sha)
		if err != nil {
			return nil, nil, err
		}
		t := twin.LoadCaseTarget{Case: c, PartRef: part.Ref(), StepFile: file, StepSHA256: sha, Material: c.Material}
		if t.Material == "" {
			t.Material, _ = part.Properties["material"].(string)
		}
		out = append(out, t)
	}
	return out, skipped, nil
}

// stepInWorkspace writes a STEP blob into the workspace once, named by its
// hash, so the mesher (which reads only the workspace and the allowed
// roots) can read it, and a revision already written is not written again.
func (b *Backend) stepInWorkspace(key, sha string) (string, error) {
	if b.Files == nil || b.Files.Root == "" {
		return "", fmt.Errorf("this twin has no workspace to hand the part's STEP to the mesher")
	}
	if strings.ContainsAny(sha, `/\.`) {
		return "", fmt.Errorf("step_sha256 %q is not a hash", sha)
	}
	path := filepath.Join(b.Files.Root, "cad", sha+".step")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	data, err := b.Blobs.Get(key)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	// Written aside and renamed, so a mesher never reads half a file and
	// two runs writing the same revision at once both end with it whole.
	tmp, err := os.CreateTemp(filepath.Dir(path), sha+"-*.tmp")
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}
