package gazebo

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// libsdformat opens whatever an <include><uri> names (a file, a model
// folder, "model://x" looked up on its search paths), and the solver
// sandbox shows it the whole host read-only. So before the checker runs,
// every include is followed here, as libsdformat would find it, and one
// that leads outside the read roots is refused: the report would
// otherwise describe files the caller may not read. The checker runs in
// the file's folder (it moves there itself) with libsdformat's search
// paths cleared (checkerEnv), so a URI is found there or not at all.

// Bounds on the includes followed.
const (
	maxIncludeDepth = 10
	maxIncludeFiles = 100
)

// searchPathVars are the variables libsdformat and Gazebo look up model
// URIs on; the checker runs without them.
var searchPathVars = []string{"SDF_PATH", "IGN_GAZEBO_RESOURCE_PATH", "GZ_SIM_RESOURCE_PATH", "GAZEBO_MODEL_PATH", "IGN_FILE_PATH", "GZ_FILE_PATH"}

// checkerEnv is this process's environment without libsdformat's search
// paths.
func checkerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(searchPathVars, name) {
			env = append(env, kv)
		}
	}
	return env
}

// scheme is a URI's scheme and its "://", which libsdformat strips before
// looking for the rest as a path.
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// screenIncludes follows the includes of top (the file checked, already
// resolved inside the read roots), and of the files they bring in,
// refusing any that leads outside the roots.
func (a *Adapter) screenIncludes(what, top string) error {
	seen := map[string]bool{}
	var walk func(file string, depth int) error
	walk = func(file string, depth int) error {
		if seen[file] {
			return nil
		}
		seen[file] = true
		if len(seen) > maxIncludeFiles {
			return protocol.Invalid("%s brings in more than %d files through <include>; check a smaller world", what, maxIncludeFiles)
		}
		uris, err := includeURIs(file)
		if err != nil {
			return protocol.Invalid("%s: the <include> elements of %s cannot be read (%v), so the files they name cannot be checked "+
				"against the read roots; fix the XML", what, file, err)
		}
		if len(uris) > 0 && depth >= maxIncludeDepth {
			return protocol.Invalid("%s nests <include> more than %d deep (in %s)", what, maxIncludeDepth, file)
		}
		for _, uri := range uris {
			path := scheme.ReplaceAllString(uri, "")
			if path == "" {
				continue // libsdformat reports an empty URI itself
			}
			// libsdformat looks for a relative path in several folders
			// (the working folder, its own share folder), so one that
			// climbs with .. could land anywhere.
			if !filepath.IsAbs(path) && slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
				return protocol.Invalid("%s: <include> uri %q (in %s) climbs out of its folder with ..; name the model by a path "+
					"below the file's folder or by an absolute path inside the allowed roots", what, uri, file)
			}
			var candidates []string
			if filepath.IsAbs(path) {
				candidates = []string{path}
			} else { // beside the including file, or in the top file's folder, where the checker runs
				candidates = []string{filepath.Join(filepath.Dir(file), path), filepath.Join(filepath.Dir(top), path)}
			}
			for _, c := range candidates {
				if !a.ws.Inside(what, c) {
					return protocol.Invalid("%s: <include> uri %q (in %s) leads outside the allowed roots for reading: %s; "+
						"copy the model it names in beside the file", what, uri, file, strings.Join(a.ws.Roots(), ", "))
				}
				next, err := includedFiles(c)
				if err != nil {
					return protocol.Invalid("%s: <include> uri %q (in %s) cannot be followed: %v", what, uri, file, err)
				}
				for _, n := range next {
					if err := walk(n, depth+1); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return walk(top, 0)
}

// includedFiles are the SDF files an include naming path may open: the
// file, or a model folder's .sdf files; none when nothing is there (the
// checker then reports the URI it could not find). A link is followed;
// Inside has already checked where it leads.
func includedFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case st.Mode().IsRegular():
		return []string{path}, nil
	case !st.IsDir():
		return nil, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.EqualFold(filepath.Ext(e.Name()), ".sdf") {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	return out, nil
}

// includeURIs reads the text of every <uri> directly inside an <include>,
// at any depth. XML that does not parse has none when it names no
// include at all (the checker reports what is wrong with it); otherwise
// its includes cannot be known, which is an error.
func includeURIs(file string) ([]string, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	d := xml.NewDecoder(bytes.NewReader(text))
	d.Strict = false
	var (
		uris  []string
		stack []string
		uri   strings.Builder
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return uris, nil
		}
		if err != nil {
			if !bytes.Contains(text, []byte("include")) {
				return nil, nil
			}
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			uri.Reset()
		case xml.CharData:
			uri.Write(t)
		case xml.EndElement:
			n := len(stack)
			if n >= 2 && stack[n-1] == "uri" && stack[n-2] == "include" {
				uris = append(uris, strings.TrimSpace(uri.String()))
			}
			if n > 0 {
				stack = stack[:n-1]
			}
		}
	}
}
