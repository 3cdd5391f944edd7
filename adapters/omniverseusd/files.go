package omniverseusd

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// usdExts are the extensions of the USD files the tools read: text,
// binary crate, either, and a zip package.
var usdExts = []string{".usd", ".usda", ".usdc", ".usdz"}

// input resolves a file the tool reads inside the workspace: it must exist
// there, and end in one of exts; what names the kind for the error.
func (a *Adapter) input(field, path, what string, exts []string) (string, error) {
	resolved, err := a.ws.ResolveRead(field, path)
	if err != nil {
		return "", err
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return "", protocol.Invalid("%s %q has no absolute path: %v", field, path, err)
	}
	if !slices.Contains(exts, strings.ToLower(filepath.Ext(resolved))) {
		return "", protocol.Invalid("%s %q is not a %s file (%s)", field, path, what, strings.Join(exts, ", "))
	}
	return resolved, nil
}

// stem is a file's name without its folder and extension.
func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// inputRule describes an input file argument at path.
func inputRule(path, what string) adapters.SchemaRule {
	return adapters.At(path, adapters.MinLength(1),
		adapters.Describe("Path of "+what+" inside the workspace, e.g. an output_file an earlier call returned; "+
			"a relative path is taken from the workspace root."))
}
