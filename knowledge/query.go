package knowledge

import (
	"sort"
	"strings"
	"unicode"

	"github.com/metaforge/metaforge/protocol"
)

// Search limits: the passages a query returns when it names no limit, and
// the most it may ask for.
const (
	defaultLimit = 10
	maxLimit     = 100
	// maxTerms caps the words of one query: past a few dozen, more words
	// only make a slower OR.
	maxTerms = 32
)

// limit is q's limit with the default applied and the cap enforced.
func (q Query) limit() int {
	switch {
	case q.Limit <= 0:
		return defaultLimit
	case q.Limit > maxLimit:
		return maxLimit
	}
	return q.Limit
}

// words are the distinct lower-cased words of user text, in order: runs of
// letters and digits, as SQLite's unicode61 tokenizer cuts them, so every
// word is one token and nothing in the text can act as a search operator
// (quotes, parentheses, AND/OR/NOT/NEAR, "->", "*", ":" are separators or
// plain words). English stop words are dropped, as PostgreSQL's english
// configuration drops them, so a query asks both stores for the same
// words.
func words(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Co, r)
	}) {
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxTerms {
			break
		}
	}
	return out
}

// stopWords is PostgreSQL's english.stop (the Snowball list).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours
		yourself yourselves he him his himself she her hers herself it its itself they them
		their theirs themselves what which who whom this that these those am is are was were
		be been being have has had having do does did doing a an the and but if or because as
		until while of at by for with about against between into through during before after
		above below to from up down in out on off over under again further then once here
		there when where why how all any both each few more most other some such no nor not
		only own same so than too very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()

// normTags is tags with keys trimmed and lower-cased (values as given), an
// empty map for none. An empty key is refused.
func normTags(tags map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		key := strings.ToLower(strings.TrimSpace(k))
		if key == "" {
			return nil, protocol.Invalid("tag %q=%q has an empty key; give each tag a name", k, v)
		}
		out[key] = v
	}
	return out, nil
}

// sortedKeys are m's keys in order, so queries built from a map are the
// same each time.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
