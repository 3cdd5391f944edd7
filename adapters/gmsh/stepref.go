package gmsh

import (
	"os"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// A STEP file can name other files: a multi-file assembly's external
// references (DOCUMENT_FILE, and the external identification assignment
// of AP214), which OpenCASCADE's reader opens as gmsh merges the part, by
// absolute path or from the folder gmsh reads the part in (the call's
// scratch folder). checkStepRefs lets through only a plain file name, which
// can only reach that folder; a path, a climb out with "..", or a name in
// STEP's escaped encodings (which could hide a "/") is refused before gmsh
// starts.

// stepRefEntity finds the entities whose string arguments OpenCASCADE may
// take for a referenced file's name: the first two of DOCUMENT_FILE (its
// id and name), the first of the assignment.
var stepRefEntity = regexp.MustCompile(`(?i)\b(DOCUMENT_FILE|APPLIED_EXTERNAL_IDENTIFICATION_ASSIGNMENT|EXTERNAL_IDENTIFICATION_ASSIGNMENT)\s*\(`)

// plainRef is a file name that stays in the folder it is read from.
var plainRef = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+ -]*$`)

func checkStepRefs(path string) error { return CheckStepRefs("input_file", path, "gmsh") }

// CheckStepRefs is the same check for another reader of STEP files (the
// freecad adapter's OpenCASCADE follows the same references): field names
// the argument, reader the program that would follow them.
func CheckStepRefs(field, path, reader string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return protocol.Invalid("%s %s cannot be read: %v", field, path, err)
	}
	text := string(data)
	for _, m := range stepRefEntity.FindAllStringSubmatchIndex(text, -1) {
		entity := strings.ToUpper(text[m[2]:m[3]])
		n := 1
		if entity == "DOCUMENT_FILE" {
			n = 2
		}
		for _, name := range stepStrings(text[m[1]:], n) {
			if name == "" || (plainRef.MatchString(name) && name != "." && name != "..") {
				continue
			}
			line := 1 + strings.Count(text[:m[0]], "\n")
			return protocol.Invalid("%s %s line %d: %s names %q, a file outside the part for %s to read; "+
				"external references are followed only by plain file name: export the part as one STEP file", field, path, line, entity, name, reader)
		}
	}
	return nil
}

// stepStrings reads the first n arguments of an entity (s starts after its
// opening parenthesis): each string as written (” is a quote), "" for an
// argument that is not a string.
func stepStrings(s string, n int) []string {
	var out []string
	i := 0
	for len(out) < n && i < len(s) {
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
		if i >= len(s) || s[i] == ')' {
			break
		}
		if s[i] != '\'' {
			// Not a string: skip to the next argument.
			depth := 0
			for ; i < len(s); i++ {
				if c := s[i]; c == '(' {
					depth++
				} else if c == ')' && depth > 0 {
					depth--
				} else if (c == ',' || c == ')') && depth == 0 {
					break
				}
			}
			out = append(out, "")
		} else {
			var b strings.Builder
			for i++; i < len(s); i++ {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						b.WriteByte('\'')
						i++
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
			}
			out = append(out, b.String())
		}
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
		if i < len(s) && s[i] == ',' {
			i++
		} else {
			break
		}
	}
	return out
}
