package components

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// sqliteSchema is the catalogue's tables in SQLite. The file may be the
// knowledge store's too, so every name starts with component_.
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS component_rows (
	id INTEGER PRIMARY KEY,
	mpn_key TEXT NOT NULL,
	manufacturer_key TEXT NOT NULL,
	mpn TEXT NOT NULL,
	manufacturer TEXT NOT NULL,
	category TEXT NOT NULL,
	kind TEXT NOT NULL,
	description TEXT NOT NULL,
	price REAL,
	currency TEXT NOT NULL,
	image_url TEXT NOT NULL,
	footprint TEXT NOT NULL,
	cad_model_url TEXT NOT NULL,
	datasheet_url TEXT NOT NULL,
	source TEXT NOT NULL,
	accepted_by TEXT NOT NULL,
	indexed_at TEXT NOT NULL,
	content_sha256 TEXT NOT NULL,
	UNIQUE (mpn_key, manufacturer_key)
);
CREATE INDEX IF NOT EXISTS component_rows_category ON component_rows (category);
CREATE TABLE IF NOT EXISTS component_figures (
	row_id INTEGER NOT NULL REFERENCES component_rows (id),
	name TEXT NOT NULL,
	value REAL NOT NULL,
	unit TEXT NOT NULL,
	si_value REAL NOT NULL,
	si_unit TEXT NOT NULL,
	dimension TEXT NOT NULL,
	page INTEGER NOT NULL,
	PRIMARY KEY (row_id, name)
);
`

// OpenSQLite opens (creating it and its directory if need be) the
// catalogue in the SQLite file at path. Writes take the file's lock at
// the start of their transaction and wait up to 10 s for another writer
// (the knowledge store in the same file, another process), rather than
// failing at once.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("component catalogue %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("component catalogue: %w", err)
	}
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("component catalogue %s: %w", abs, err)
	}
	db.SetMaxOpenConns(1) // one writer at a time in this process; readers wait their turn
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("component catalogue %s: %w", abs, err)
	}
	return &sqlStore{db: db, describe: "typed component catalogue (SQLite) in " + abs}, nil
}
