package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/metaforge/metaforge/protocol"
)

// postgresSchema is the store's tables, made if missing. A chunk keeps its
// tsvector (english configuration, GIN-indexed) and its length in tokens
// (positions in the tsvector), both computed once when it is stored.
// indexed_chunks and indexed_tokens are a source's chunk count and token
// total as of FinishSource (kept up to date by PutChunks after it): the
// corpus figures BM25 needs, summed over the few source rows instead of
// every chunk.
const postgresSchema = `
CREATE TABLE IF NOT EXISTS knowledge_sources (
	id             text PRIMARY KEY,
	sha256         text NOT NULL UNIQUE,
	origin         text NOT NULL,
	title          text NOT NULL,
	format         text NOT NULL,
	tags           jsonb NOT NULL DEFAULT '{}',
	pages          int NOT NULL DEFAULT 0,
	chunks         int NOT NULL DEFAULT 0,
	bytes          bigint NOT NULL DEFAULT 0,
	state          text NOT NULL,
	ingested_at    timestamptz NOT NULL,
	indexed_chunks bigint NOT NULL DEFAULT 0,
	indexed_tokens bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS knowledge_sources_tags ON knowledge_sources USING gin (tags jsonb_path_ops);
CREATE INDEX IF NOT EXISTS knowledge_sources_ingested ON knowledge_sources (ingested_at);
CREATE TABLE IF NOT EXISTS knowledge_chunks (
	source_id text NOT NULL REFERENCES knowledge_sources (id),
	page      int NOT NULL,
	seq       int NOT NULL,
	text      text NOT NULL,
	tsv       tsvector NOT NULL,
	tokens    int NOT NULL,
	PRIMARY KEY (source_id, page, seq)
);
CREATE INDEX IF NOT EXISTS knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv);
`

// postgresSchemaLock is the advisory lock key ("mfknowle") held while the
// schema is made, so servers and workers starting together do not race
// on CREATE ... IF NOT EXISTS (which is not safe concurrently).
const postgresSchemaLock int64 = 0x6d666b6e6f776c65

type postgresStore struct {
	pool *pgxpool.Pool
}

// OpenPostgres opens the knowledge base in the PostgreSQL database at
// databaseURL, making its tables when missing.
func OpenPostgres(ctx context.Context, databaseURL string) (Store, error) {
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		return nil, protocol.Invalid("knowledge base DATABASE_URL: %v", err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, postgresSchemaLock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, postgresSchema)
		return err
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("knowledge base in PostgreSQL: creating its tables: %w", err)
	}
	return &postgresStore{pool: pool}, nil
}

func (s *postgresStore) Describe() string {
	return "full text, BM25 over PostgreSQL tsvector (GIN index)"
}

func (s *postgresStore) Close() error {
	s.pool.Close()
	return nil
}

func (s *postgresStore) BeginSource(ctx context.Context, src Source) (got Source, existed bool, err error) {
	src, err = newSource(src)
	if err != nil {
		return Source{}, false, err
	}
	tags, _ := json.Marshal(src.Tags)
	// Inserted unless the bytes are there already; two ingests of the
	// same bytes at once both end up with the one row.
	tag, err := s.pool.Exec(ctx, `INSERT INTO knowledge_sources (id, sha256, origin, title, format, tags, bytes, state, ingested_at)
		VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) ON CONFLICT DO NOTHING`,
		src.ID, src.SHA256, src.Origin, src.Title, src.Format, string(tags), src.Bytes, src.State, src.IngestedAt)
	if err != nil {
		return Source{}, false, err
	}
	if tag.RowsAffected() == 1 {
		return src, false, nil
	}
	old, err := s.SourceBySHA256(ctx, src.SHA256)
	if err != nil {
		return Source{}, false, err
	}
	return old, old.State == StateIndexed, nil
}

func (s *postgresStore) PutChunks(ctx context.Context, chunks []Chunk) error {
	if err := checkChunks(chunks); err != nil || len(chunks) == 0 {
		return err
	}
	// One row per identity, the last given winning: ON CONFLICT may not
	// touch a row twice in one statement.
	type key struct {
		id        string
		page, seq int
	}
	last := map[key]int{}
	for i, c := range chunks {
		last[key{c.SourceID, c.Page, c.Seq}] = i
	}
	var ids, texts []string
	var pages, seqs []int32
	sources := map[string]bool{}
	for i, c := range chunks {
		if last[key{c.SourceID, c.Page, c.Seq}] != i {
			continue
		}
		ids, texts = append(ids, c.SourceID), append(texts, c.Text)
		pages, seqs = append(pages, int32(c.Page)), append(seqs, int32(c.Seq))
		sources[c.SourceID] = true
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var indexed []string
		for id := range sources {
			// Locked so a FinishSource running now counts these chunks or
			// comes after and counts them anyway.
			var state string
			if err := tx.QueryRow(ctx, `SELECT state FROM knowledge_sources WHERE id = $1 FOR SHARE`, id).Scan(&state); errors.Is(err, pgx.ErrNoRows) {
				return notFound("knowledge source " + id)
			} else if err != nil {
				return err
			}
			if state == StateIndexed {
				indexed = append(indexed, id)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO knowledge_chunks (source_id, page, seq, text, tsv, tokens)
			SELECT u.source_id, u.page, u.seq, u.text, v.tsv,
				(SELECT coalesce(sum(cardinality(positions)), 0) FROM unnest(v.tsv))
			FROM unnest($1::text[], $2::int[], $3::int[], $4::text[]) AS u (source_id, page, seq, text),
				LATERAL (SELECT to_tsvector('english', u.text) AS tsv) v
			ON CONFLICT (source_id, page, seq) DO UPDATE SET text = excluded.text, tsv = excluded.tsv, tokens = excluded.tokens`,
			ids, pages, seqs, texts); err != nil {
			return err
		}
		for _, id := range indexed {
			if err := postgresCountIndexed(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// postgresCountIndexed sets a source's corpus figures from its chunks.
func postgresCountIndexed(ctx context.Context, tx pgx.Tx, id string) error {
	_, err := tx.Exec(ctx, `UPDATE knowledge_sources SET (indexed_chunks, indexed_tokens) =
		(SELECT count(*), coalesce(sum(tokens), 0) FROM knowledge_chunks WHERE source_id = $1) WHERE id = $1`, id)
	return err
}

func (s *postgresStore) FinishSource(ctx context.Context, id string, pages, chunks int) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var state string
		if err := tx.QueryRow(ctx, `SELECT state FROM knowledge_sources WHERE id = $1 FOR UPDATE`, id).Scan(&state); errors.Is(err, pgx.ErrNoRows) {
			return notFound("knowledge source " + id)
		} else if err != nil {
			return err
		}
		var stored, maxPage int
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(max(page), 0) FROM knowledge_chunks WHERE source_id = $1`, id).Scan(&stored, &maxPage); err != nil {
			return err
		}
		if err := checkFinish(id, pages, chunks, stored, maxPage); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE knowledge_sources SET state = $2, pages = $3, chunks = $4 WHERE id = $1`, id, StateIndexed, pages, chunks); err != nil {
			return err
		}
		return postgresCountIndexed(ctx, tx, id)
	})
}

const postgresSourceColumns = `id, sha256, origin, title, format, tags, pages, chunks, bytes, state, ingested_at`

func (s *postgresStore) Source(ctx context.Context, id string) (Source, error) {
	return s.sourceWhere(ctx, "id = $1", id)
}

func (s *postgresStore) SourceBySHA256(ctx context.Context, sha256 string) (Source, error) {
	return s.sourceWhere(ctx, "sha256 = $1", strings.ToLower(strings.TrimSpace(sha256)))
}

func (s *postgresStore) sourceWhere(ctx context.Context, where string, arg any) (Source, error) {
	src, err := scanPostgresSource(s.pool.QueryRow(ctx, `SELECT `+postgresSourceColumns+` FROM knowledge_sources WHERE `+where, arg))
	if errors.Is(err, pgx.ErrNoRows) {
		return Source{}, notFound(fmt.Sprintf("knowledge source %v", arg))
	}
	return src, err
}

func scanPostgresSource(row pgx.Row) (Source, error) {
	var src Source
	if err := row.Scan(&src.ID, &src.SHA256, &src.Origin, &src.Title, &src.Format, &src.Tags,
		&src.Pages, &src.Chunks, &src.Bytes, &src.State, &src.IngestedAt); err != nil {
		return Source{}, err
	}
	src.IngestedAt = src.IngestedAt.UTC()
	if src.Tags == nil {
		src.Tags = map[string]string{}
	}
	return src, nil
}

func (s *postgresStore) Sources(ctx context.Context, tags map[string]string) ([]Source, error) {
	tags, err := normTags(tags)
	if err != nil {
		return nil, err
	}
	filter, _ := json.Marshal(tags)
	rows, err := s.pool.Query(ctx, `SELECT `+postgresSourceColumns+` FROM knowledge_sources
		WHERE tags @> $1::jsonb ORDER BY ingested_at DESC, id DESC`, string(filter))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Source{}
	for rows.Next() {
		src, err := scanPostgresSource(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, rows.Err()
}

func (s *postgresStore) Chunks(ctx context.Context, id string) ([]Chunk, error) {
	if _, err := s.Source(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT source_id, page, seq, text FROM knowledge_chunks WHERE source_id = $1 ORDER BY page, seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Chunk{}
	for rows.Next() {
		var c Chunk
		if err := rows.Scan(&c.SourceID, &c.Page, &c.Seq, &c.Text); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Search ranks by BM25 worked out here rather than ts_rank (which is not
// BM25: it has no inverse document frequency). In one snapshot:
//
//   - the query's terms are its lexemes under the english configuration
//     (to_tsvector of the text, so it is parsed exactly as chunks are and
//     no character in it is an operator), at most maxTerms of them;
//   - N and the average chunk length are sums over the indexed sources'
//     indexed_chunks and indexed_tokens (a row per source, kept by
//     FinishSource and PutChunks), not a scan of every chunk;
//   - each term's document frequency is a count of indexed chunks whose
//     tsvector matches it, through the GIN index, so it costs what the
//     term's postings cost (ts_stat would read every tsvector for every
//     query);
//   - candidates are the indexed chunks matching every term (then, when
//     none do, any term) with @@ through the GIN index, and each one's
//     score sums, over the query's lexemes in its tsvector, idf · tf·(k1+1)
//     / (tf + k1·(1 − b + b·len/avgdl)), tf being the lexeme's positions
//     and len the chunk's token count.
//
// The formula, constants and idf floor are FTS5's bm25(), so both stores
// give the same score for the same tokens. Tag filters narrow the
// candidates, not the corpus figures, as in FTS5.
func (s *postgresStore) Search(ctx context.Context, q Query) ([]Hit, error) {
	tags, err := normTags(q.Tags)
	if err != nil {
		return nil, err
	}
	filter, _ := json.Marshal(tags)
	var hits []Hit
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var lexemes []string
		if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(lexeme ORDER BY positions[1]), '{}')
			FROM (SELECT lexeme, positions FROM unnest(to_tsvector('english', $1)) ORDER BY positions[1] LIMIT $2) t`,
			q.Text, maxTerms).Scan(&lexemes); err != nil {
			return err
		}
		if len(lexemes) == 0 {
			return nil
		}
		single := make([]string, len(lexemes))
		for i, l := range lexemes {
			single[i] = tsqueryLexeme(l)
		}
		var n, tokens int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(sum(indexed_chunks), 0), coalesce(sum(indexed_tokens), 0)
			FROM knowledge_sources WHERE state = 'indexed'`).Scan(&n, &tokens); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		var df []int64
		if err := tx.QueryRow(ctx, `SELECT array_agg((SELECT count(*) FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_id
				WHERE s.state = 'indexed' AND c.tsv @@ t.q::tsquery) ORDER BY t.i)
			FROM unnest($1::text[]) WITH ORDINALITY AS t (q, i)`, single).Scan(&df); err != nil {
			return err
		}
		idf := make([]float64, len(lexemes))
		for i := range lexemes {
			idf[i] = bm25IDF(n, df[i])
		}
		avgdl := max(float64(tokens)/float64(n), 1e-9)
		for _, op := range []string{" & ", " | "} {
			if op == " | " && (len(hits) > 0 || len(lexemes) == 1) {
				break
			}
			hits, err = postgresRank(ctx, tx, strings.Join(single, op), lexemes, idf, avgdl, string(filter), q.limit())
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge search: %w", err)
	}
	if hits == nil {
		hits = []Hit{}
	}
	return hits, nil
}

// postgresRank scores the candidates of one tsquery and returns the best,
// headlined (ts_headline runs on those alone, after the limit).
func postgresRank(ctx context.Context, tx pgx.Tx, query string, lexemes []string, idf []float64, avgdl float64, tags string, limit int) ([]Hit, error) {
	rows, err := tx.Query(ctx, `
		SELECT source_id, origin, title, page, seq, tags, score,
			ts_headline('english', text, $1::tsquery, 'StartSel="**", StopSel="**", MaxWords=35, MinWords=15')
		FROM (
			SELECT c.source_id, s.origin, s.title, c.page, c.seq, s.tags, c.text,
				(SELECT coalesce(sum(w.idf * cardinality(t.positions) * ($5::float8 + 1)
					/ (cardinality(t.positions) + $5::float8 * (1 - $6::float8 + $6::float8 * c.tokens / $4::float8))), 0)
				 FROM unnest(c.tsv) AS t
				 JOIN unnest($2::text[], $3::float8[]) AS w (lexeme, idf) ON w.lexeme = t.lexeme) AS score
			FROM knowledge_chunks c
			JOIN knowledge_sources s ON s.id = c.source_id
			WHERE c.tsv @@ $1::tsquery AND s.state = 'indexed' AND s.tags @> $7::jsonb
			ORDER BY score DESC, c.source_id, c.page, c.seq
			LIMIT $8
		) top
		ORDER BY score DESC, source_id, page, seq`,
		query, lexemes, idf, avgdl, bm25K1, bm25B, tags, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.SourceID, &h.Origin, &h.Title, &h.Page, &h.Seq, &h.Tags, &h.Score, &h.Snippet); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// tsqueryLexeme is a lexeme as a tsquery operand: quoted, so whatever it
// holds (':', '*', '!', '&') is text, and not normalised again.
func tsqueryLexeme(l string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(l) + "'"
}
