package knowledge

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go, with FTS5

	"github.com/metaforge/metaforge/protocol"
)

// sqliteSchema is the store's tables. knowledge_chunks keeps every chunk;
// knowledge_fts, the FTS5 index (rowid = knowledge_chunks.id), holds only
// the chunks of indexed sources: FinishSource copies a source's chunks in.
// So search never sees a half-done ingest, and FTS5's BM25 statistics (row
// count, average length, document frequencies) are those of the indexed
// chunks alone, as PostgreSQL's are.
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS knowledge_sources (
	id          TEXT PRIMARY KEY,
	sha256      TEXT NOT NULL UNIQUE,
	origin      TEXT NOT NULL,
	title       TEXT NOT NULL,
	format      TEXT NOT NULL,
	tags        TEXT NOT NULL,
	pages       INTEGER NOT NULL DEFAULT 0,
	chunks      INTEGER NOT NULL DEFAULT 0,
	bytes       INTEGER NOT NULL DEFAULT 0,
	state       TEXT NOT NULL,
	ingested_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_sources_ingested ON knowledge_sources (ingested_at);
CREATE TABLE IF NOT EXISTS knowledge_source_tags (
	source_id TEXT NOT NULL REFERENCES knowledge_sources (id),
	key       TEXT NOT NULL,
	value     TEXT NOT NULL,
	PRIMARY KEY (source_id, key)
);
CREATE INDEX IF NOT EXISTS knowledge_source_tags_kv ON knowledge_source_tags (key, value);
CREATE TABLE IF NOT EXISTS knowledge_chunks (
	id        INTEGER PRIMARY KEY,
	source_id TEXT NOT NULL REFERENCES knowledge_sources (id),
	page      INTEGER NOT NULL,
	seq       INTEGER NOT NULL,
	text      TEXT NOT NULL,
	UNIQUE (source_id, page, seq)
);
CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_fts USING fts5(text, tokenize = 'porter unicode61');
`

// sqliteBusyTimeout is how long a connection waits for another's write
// (this process's or another's on the same file) before giving up.
const sqliteBusyTimeout = 10 * time.Second

type sqliteStore struct {
	db   *sql.DB
	path string
}

// OpenSQLite opens the knowledge base in the SQLite file at path, making
// the file (and its directory) and its tables when missing. The file is
// in WAL mode with a busy timeout and every transaction takes the write
// lock when it begins, so a worker process ingesting and a server
// searching can share it.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, protocol.Invalid("knowledge base path %q: give a file path without '?'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("knowledge base directory: %w", err)
	}
	dsn := path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate",
		sqliteBusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", path, err)
	}
	s := &sqliteStore{db: db, path: path}
	if err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, sqliteSchema)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("knowledge base %s: creating its tables: %w", path, err)
	}
	return s, nil
}

func (s *sqliteStore) Describe() string {
	return "full text, BM25 (SQLite FTS5) in " + s.path
}

func (s *sqliteStore) Close() error { return s.db.Close() }

// tx runs f in a transaction (which takes the write lock at once: see the
// DSN's _txlock), committed when f returns nil.
func (s *sqliteStore) tx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (s *sqliteStore) BeginSource(ctx context.Context, src Source) (got Source, existed bool, err error) {
	src, err = newSource(src)
	if err != nil {
		return Source{}, false, err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		old, err := sqliteSourceWhere(ctx, tx, "sha256 = ?", src.SHA256)
		switch {
		case err == nil:
			got, existed = old, old.State == StateIndexed
			return nil
		case !errors.Is(err, ErrNotFound):
			return err
		}
		tags, _ := json.Marshal(src.Tags)
		if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge_sources
			(id, sha256, origin, title, format, tags, bytes, state, ingested_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			src.ID, src.SHA256, src.Origin, src.Title, src.Format, string(tags), src.Bytes, src.State, src.IngestedAt.UnixMicro()); err != nil {
			return err
		}
		for _, k := range sortedKeys(src.Tags) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge_source_tags (source_id, key, value) VALUES (?, ?, ?)`, src.ID, k, src.Tags[k]); err != nil {
				return err
			}
		}
		got = src
		return nil
	})
	if err != nil {
		return Source{}, false, err
	}
	return got, existed, nil
}

func (s *sqliteStore) PutChunks(ctx context.Context, chunks []Chunk) error {
	if err := checkChunks(chunks); err != nil || len(chunks) == 0 {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		states := map[string]string{}
		for _, c := range chunks {
			state, ok := states[c.SourceID]
			if !ok {
				if err := tx.QueryRowContext(ctx, `SELECT state FROM knowledge_sources WHERE id = ?`, c.SourceID).Scan(&state); errors.Is(err, sql.ErrNoRows) {
					return notFound("knowledge source " + c.SourceID)
				} else if err != nil {
					return err
				}
				states[c.SourceID] = state
			}
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO knowledge_chunks (source_id, page, seq, text) VALUES (?, ?, ?, ?)
				ON CONFLICT (source_id, page, seq) DO UPDATE SET text = excluded.text
				RETURNING id`, c.SourceID, c.Page, c.Seq, c.Text).Scan(&id); err != nil {
				return err
			}
			// A chunk of an indexed source replaces its indexed text too.
			if state == StateIndexed {
				if _, err := tx.ExecContext(ctx, `DELETE FROM knowledge_fts WHERE rowid = ?`, id); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge_fts (rowid, text) VALUES (?, ?)`, id, c.Text); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (s *sqliteStore) FinishSource(ctx context.Context, id string, pages, chunks int) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var state string
		if err := tx.QueryRowContext(ctx, `SELECT state FROM knowledge_sources WHERE id = ?`, id).Scan(&state); errors.Is(err, sql.ErrNoRows) {
			return notFound("knowledge source " + id)
		} else if err != nil {
			return err
		}
		var stored, maxPage int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(max(page), 0) FROM knowledge_chunks WHERE source_id = ?`, id).Scan(&stored, &maxPage); err != nil {
			return err
		}
		if err := checkFinish(id, pages, chunks, stored, maxPage); err != nil {
			return err
		}
		if state != StateIndexed {
			if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge_fts (rowid, text) SELECT id, text FROM knowledge_chunks WHERE source_id = ?`, id); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE knowledge_sources SET state = ?, pages = ?, chunks = ? WHERE id = ?`, StateIndexed, pages, chunks, id)
		return err
	})
}

func (s *sqliteStore) Source(ctx context.Context, id string) (Source, error) {
	return sqliteSourceWhere(ctx, s.db, "id = ?", id)
}

func (s *sqliteStore) SourceBySHA256(ctx context.Context, sha256 string) (Source, error) {
	return sqliteSourceWhere(ctx, s.db, "sha256 = ?", strings.ToLower(strings.TrimSpace(sha256)))
}

func (s *sqliteStore) Sources(ctx context.Context, tags map[string]string) ([]Source, error) {
	tags, err := normTags(tags)
	if err != nil {
		return nil, err
	}
	where, args := sqliteTagFilter("id", tags)
	rows, err := s.db.QueryContext(ctx, `SELECT `+sqliteSourceColumns+` FROM knowledge_sources WHERE 1 = 1`+where+
		` ORDER BY ingested_at DESC, id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Source{}
	for rows.Next() {
		src, err := scanSQLiteSource(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, rows.Err()
}

func (s *sqliteStore) Chunks(ctx context.Context, id string) ([]Chunk, error) {
	if _, err := s.Source(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT source_id, page, seq, text FROM knowledge_chunks WHERE source_id = ? ORDER BY page, seq`, id)
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

// Search asks FTS5 for every word (each a quoted string, so nothing in the
// user's text is an operator), then, when that finds nothing, for any
// word. bm25() is FTS5's BM25 (k1 1.2, b 0.75) negated, smaller is better,
// so the score returned is its negation.
func (s *sqliteStore) Search(ctx context.Context, q Query) ([]Hit, error) {
	tags, err := normTags(q.Tags)
	if err != nil {
		return nil, err
	}
	terms := words(q.Text)
	if len(terms) == 0 {
		return []Hit{}, nil
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	hits, err := s.search(ctx, strings.Join(quoted, " AND "), tags, q.limit())
	if err != nil || len(hits) > 0 || len(terms) == 1 {
		return hits, err
	}
	return s.search(ctx, strings.Join(quoted, " OR "), tags, q.limit())
}

func (s *sqliteStore) search(ctx context.Context, match string, tags map[string]string, limit int) ([]Hit, error) {
	where, args := sqliteTagFilter("s.id", tags)
	args = append([]any{match}, args...)
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, `
		SELECT c.source_id, s.origin, s.title, c.page, c.seq, s.tags,
			snippet(knowledge_fts, 0, '**', '**', '…', 32), bm25(knowledge_fts)
		FROM knowledge_fts
		JOIN knowledge_chunks c ON c.id = knowledge_fts.rowid
		JOIN knowledge_sources s ON s.id = c.source_id
		WHERE knowledge_fts MATCH ? AND s.state = 'indexed'`+where+`
		ORDER BY bm25(knowledge_fts), c.source_id, c.page, c.seq
		LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("knowledge search: %w", err)
	}
	defer rows.Close()
	out := []Hit{}
	for rows.Next() {
		var h Hit
		var tagsJSON string
		var bm25 float64
		if err := rows.Scan(&h.SourceID, &h.Origin, &h.Title, &h.Page, &h.Seq, &tagsJSON, &h.Snippet, &bm25); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(tagsJSON), &h.Tags); err != nil {
			return nil, fmt.Errorf("source %s tags: %w", h.SourceID, err)
		}
		h.Score = -bm25
		out = append(out, h)
	}
	return out, rows.Err()
}

// sqliteTagFilter is the SQL (to follow a WHERE) and arguments keeping the
// sources, identified by the column idCol, whose tags equal tags.
func sqliteTagFilter(idCol string, tags map[string]string) (string, []any) {
	var b strings.Builder
	var args []any
	for _, k := range sortedKeys(tags) {
		b.WriteString(` AND EXISTS (SELECT 1 FROM knowledge_source_tags t WHERE t.source_id = ` + idCol + ` AND t.key = ? AND t.value = ?)`)
		args = append(args, k, tags[k])
	}
	return b.String(), args
}

const sqliteSourceColumns = `id, sha256, origin, title, format, tags, pages, chunks, bytes, state, ingested_at`

type sqliteQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqliteSourceWhere is the one source matching where; ErrNotFound when
// none does.
func sqliteSourceWhere(ctx context.Context, q sqliteQueryer, where string, arg any) (Source, error) {
	src, err := scanSQLiteSource(q.QueryRowContext(ctx, `SELECT `+sqliteSourceColumns+` FROM knowledge_sources WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Source{}, notFound(fmt.Sprintf("knowledge source %v", arg))
	}
	return src, err
}

func scanSQLiteSource(row interface{ Scan(...any) error }) (Source, error) {
	var src Source
	var tagsJSON string
	var ingested int64
	if err := row.Scan(&src.ID, &src.SHA256, &src.Origin, &src.Title, &src.Format, &tagsJSON,
		&src.Pages, &src.Chunks, &src.Bytes, &src.State, &ingested); err != nil {
		return Source{}, err
	}
	if err := json.Unmarshal([]byte(tagsJSON), &src.Tags); err != nil {
		return Source{}, fmt.Errorf("source %s tags: %w", src.ID, err)
	}
	src.IngestedAt = time.UnixMicro(ingested).UTC()
	return src, nil
}
