package components

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// postgresSchema is the catalogue's tables in PostgreSQL, the same as
// SQLite's in PostgreSQL's types.
const postgresSchema = `
CREATE TABLE IF NOT EXISTS component_rows (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	mpn_key TEXT NOT NULL,
	manufacturer_key TEXT NOT NULL,
	mpn TEXT NOT NULL,
	manufacturer TEXT NOT NULL,
	category TEXT NOT NULL,
	kind TEXT NOT NULL,
	description TEXT NOT NULL,
	price DOUBLE PRECISION,
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
	row_id BIGINT NOT NULL REFERENCES component_rows (id),
	name TEXT NOT NULL,
	value DOUBLE PRECISION NOT NULL,
	unit TEXT NOT NULL,
	si_value DOUBLE PRECISION NOT NULL,
	si_unit TEXT NOT NULL,
	dimension TEXT NOT NULL,
	page INTEGER NOT NULL,
	PRIMARY KEY (row_id, name)
);
`

// OpenPostgres opens the catalogue in the PostgreSQL database at
// databaseURL (a DATABASE_URL), creating its tables if need be.
func OpenPostgres(ctx context.Context, databaseURL string) (Store, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("component catalogue: DATABASE_URL: %w", err)
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
	db := sql.OpenDB(stdlib.GetConnector(*cfg))
	if _, err := db.ExecContext(ctx, postgresSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("component catalogue %s: %w", where, err)
	}
	return &sqlStore{db: db, postgres: true, describe: "typed component catalogue (PostgreSQL) at " + where}, nil
}
