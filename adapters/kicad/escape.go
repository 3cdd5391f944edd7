package kicad

import (
	"fmt"
	"sort"
	"strings"
)

// kicadEscapes are the {token}s KiCad writes for characters a name may not
// hold as they are (a net name's "/" is {slash}, since "/" separates its
// sheet path), as UnescapeString reads them back (common/string_utils.cpp).
var kicadEscapes = map[string]string{
	"dblquote": `"`, "quote": "'", "lt": "<", "gt": ">", "backslash": `\`, "slash": "/", "bar": "|",
	"comma": ",", "colon": ":", "space": " ", "dollar": "$", "tab": "\t", "return": "\n", "brace": "{",
}

// unescapeKiCad is KiCad's UnescapeString: the text a user sees in KiCad
// for a name as stored ("/VPP{slash}MCLR" is "/VPP/MCLR"). A {token} it
// does not know, and the markup ${VAR}, ~{overbar}, ^{super} and _{sub},
// keep their braces, with escapes inside them read; a "{" never closed is
// kept with the rest read after it.
func unescapeKiCad(s string) string {
	if len(s) <= 2 || !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	var prev byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '{' {
			b.WriteByte(c)
			prev = c
			continue
		}
		depth, j := 1, i+1
		for ; j < len(s); j++ {
			if s[j] == '{' {
				depth++
			} else if s[j] == '}' {
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if j >= len(s) { // never closed
			b.WriteString("{" + unescapeKiCad(s[i+1:]))
			break
		}
		token := s[i+1 : j]
		if r, ok := kicadEscapes[token]; ok && !strings.ContainsRune("$~^_", rune(prev)) {
			b.WriteString(r)
		} else {
			b.WriteString("{" + unescapeKiCad(token) + "}")
		}
		i, prev = j, '}'
	}
	return b.String()
}

// showNetNames gives every net the name a user sees in KiCad. Two nets
// whose names read the same once unescaped ("/A{slash}B", label A/B on the
// root sheet, and "/A/B", label B in sheet A) keep their names as stored,
// so they stay two, and a warning says so.
func (src *netSource) showNetNames() {
	byShown := map[string][]int{}
	for i, n := range src.nets {
		shown := unescapeKiCad(n.Name)
		byShown[shown] = append(byShown[shown], i)
	}
	var clashes []string
	for shown, nets := range byShown {
		if len(nets) > 1 {
			var stored []string
			for _, i := range nets {
				stored = append(stored, fmt.Sprintf("%q", src.nets[i].Name))
			}
			sort.Strings(stored)
			clashes = append(clashes, fmt.Sprintf("nets %s all read %q in KiCad: their names are given as stored, with KiCad's escapes", strings.Join(stored, ", "), shown))
			continue
		}
		src.nets[nets[0]].Name = shown
	}
	sort.Strings(clashes)
	src.warnings = append(src.warnings, clashes...)
	sort.Slice(src.nets, func(i, j int) bool { return src.nets[i].Name < src.nets[j].Name })
}
