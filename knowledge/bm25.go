package knowledge

import "math"

// BM25's constants, FTS5's (its bm25() fixes them), so the PostgreSQL
// store, which works BM25 out itself, scores as the SQLite store does.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25IDF is the inverse document frequency of a term in df of n chunks,
// as FTS5 computes it: ln((n − df + 0.5) / (df + 0.5)), floored at 1e-6 so
// a term in more than half the chunks still counts a little rather than
// against the chunk.
func bm25IDF(n, df int64) float64 {
	idf := math.Log((float64(n) - float64(df) + 0.5) / (float64(df) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}
