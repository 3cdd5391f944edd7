package components

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// sqlStore is the catalogue in SQL: the same statements on SQLite and
// PostgreSQL (written with ? and rebound to $n for PostgreSQL), one row of
// component_rows per part and one row of component_figures per figure.
type sqlStore struct {
	db       *sql.DB
	postgres bool
	describe string
}

// q writes a statement's placeholders as the database reads them.
func (s *sqlStore) q(stmt string) string {
	if !s.postgres {
		return stmt
	}
	var b strings.Builder
	n := 0
	for _, c := range stmt {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s *sqlStore) Describe() string { return s.describe }

func (s *sqlStore) Close() error { return s.db.Close() }

// contentHash is what a row says apart from when it was indexed: the same
// hash is an unchanged row.
func contentHash(r Row) string {
	r.IndexedAt = time.Time{}
	raw, _ := json.Marshal(r)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

func (s *sqlStore) Put(ctx context.Context, rows []Row) ([]string, error) {
	for i := range rows {
		if err := rows[i].Check(); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	out := make([]string, len(rows))
	for i, r := range rows {
		if out[i], err = s.put(ctx, tx, r); err != nil {
			return nil, fmt.Errorf("row %d (%s): %w", i, r.MPN, err)
		}
	}
	return out, tx.Commit()
}

func (s *sqlStore) put(ctx context.Context, tx *sql.Tx, r Row) (string, error) {
	mk, fk := r.Key()
	hash := contentHash(r)
	var id int64
	var old string
	err := tx.QueryRowContext(ctx, s.q(`SELECT id, content_sha256 FROM component_rows WHERE mpn_key = ? AND manufacturer_key = ?`), mk, fk).Scan(&id, &old)
	outcome := Added
	switch {
	case err == nil && old == hash:
		return Unchanged, nil
	case err == nil:
		outcome = Replaced
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM component_figures WHERE row_id = ?`), id); err != nil {
			return "", err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM component_rows WHERE id = ?`), id); err != nil {
			return "", err
		}
	case !errors.Is(err, sql.ErrNoRows):
		return "", err
	}
	if r.IndexedAt.IsZero() {
		r.IndexedAt = time.Now().UTC()
	}
	var price sql.NullFloat64
	if r.Price != nil {
		price = sql.NullFloat64{Float64: *r.Price, Valid: true}
	}
	err = tx.QueryRowContext(ctx, s.q(`INSERT INTO component_rows (mpn_key, manufacturer_key, mpn, manufacturer, category, kind,
		description, price, currency, image_url, footprint, cad_model_url, datasheet_url, source, accepted_by, indexed_at, content_sha256)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		mk, fk, r.MPN, r.Manufacturer, r.Category, r.Kind, r.Description, price, r.Currency, r.ImageURL, r.Footprint,
		r.CADModelURL, r.DatasheetURL, r.Source, r.AcceptedBy, r.IndexedAt.UTC().Format(time.RFC3339Nano), hash).Scan(&id)
	if err != nil {
		return "", err
	}
	for _, f := range r.Figures {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO component_figures (row_id, name, value, unit, si_value, si_unit, dimension, page)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), id, f.Name, f.Value, f.Unit, f.SI, f.SIUnit, f.Dimension, f.Page); err != nil {
			return "", err
		}
	}
	return outcome, nil
}

const rowColumns = `r.id, r.mpn, r.manufacturer, r.category, r.kind, r.description, r.price, r.currency, r.image_url,
	r.footprint, r.cad_model_url, r.datasheet_url, r.source, r.accepted_by, r.indexed_at`

// read reads the rows a WHERE clause selects, with their figures.
func (s *sqlStore) read(ctx context.Context, where string, args ...any) ([]Row, error) {
	rs, err := s.db.QueryContext(ctx, s.q(`SELECT `+rowColumns+` FROM component_rows r WHERE `+where+
		` ORDER BY r.mpn_key, r.manufacturer_key`), args...)
	if err != nil {
		return nil, err
	}
	var out []Row
	at := map[int64]int{}
	for rs.Next() {
		var r Row
		var id int64
		var price sql.NullFloat64
		var indexed string
		if err := rs.Scan(&id, &r.MPN, &r.Manufacturer, &r.Category, &r.Kind, &r.Description, &price, &r.Currency,
			&r.ImageURL, &r.Footprint, &r.CADModelURL, &r.DatasheetURL, &r.Source, &r.AcceptedBy, &indexed); err != nil {
			rs.Close()
			return nil, err
		}
		if price.Valid {
			r.Price = &price.Float64
		}
		if r.IndexedAt, err = time.Parse(time.RFC3339Nano, indexed); err != nil {
			rs.Close()
			return nil, fmt.Errorf("indexed_at of %s: %w", r.MPN, err)
		}
		r.Figures = []Figure{}
		at[id] = len(out)
		out = append(out, r)
	}
	if err := rs.Close(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, rs.Err()
	}
	fs, err := s.db.QueryContext(ctx, s.q(`SELECT f.row_id, f.name, f.value, f.unit, f.si_value, f.si_unit, f.dimension, f.page
		FROM component_figures f JOIN component_rows r ON r.id = f.row_id WHERE `+where+` ORDER BY f.row_id, f.name`), args...)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	for fs.Next() {
		var id int64
		var f Figure
		if err := fs.Scan(&id, &f.Name, &f.Value, &f.Unit, &f.SI, &f.SIUnit, &f.Dimension, &f.Page); err != nil {
			return nil, err
		}
		if i, ok := at[id]; ok {
			out[i].Figures = append(out[i].Figures, f)
		}
	}
	return out, fs.Err()
}

func (s *sqlStore) Rows(ctx context.Context, category string) ([]Row, error) {
	if category == "" {
		return s.read(ctx, `1 = 1`)
	}
	return s.read(ctx, `r.category = ?`, Category(category))
}

func (s *sqlStore) Row(ctx context.Context, mpn, manufacturer string) (Row, error) {
	rows, err := s.read(ctx, `r.mpn_key = ? AND r.manufacturer_key = ?`, identity(mpn), identity(manufacturer))
	if err != nil {
		return Row{}, err
	}
	if len(rows) == 0 {
		return Row{}, fmt.Errorf("%w: %s by %s", ErrNotFound, mpn, manufacturer)
	}
	return rows[0], nil
}

func (s *sqlStore) Categories(ctx context.Context) (map[string]int, error) {
	rs, err := s.db.QueryContext(ctx, `SELECT category, COUNT(*) FROM component_rows GROUP BY category`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := map[string]int{}
	for rs.Next() {
		var c string
		var n int
		if err := rs.Scan(&c, &n); err != nil {
			return nil, err
		}
		out[c] = n
	}
	return out, rs.Err()
}
