package components

import (
	"context"
	"errors"
)

// ErrNotFound is a row that is not in the catalogue.
var ErrNotFound = errors.New("no such catalogue row")

// Put outcomes, one per row.
const (
	Added     = "added"
	Replaced  = "replaced"
	Unchanged = "unchanged"
)

// Store keeps the catalogue.
type Store interface {
	// Put indexes rows in one transaction: a row whose mpn and
	// manufacturer (ignoring case) are already there replaces it, or
	// leaves it as it is when nothing but the index time differs. It
	// returns each row's outcome (Added, Replaced, Unchanged) in order.
	// Rows must have passed Check; an invalid row stores nothing.
	Put(ctx context.Context, rows []Row) ([]string, error)
	// Rows are a category's rows ("" is every category), by mpn then
	// manufacturer.
	Rows(ctx context.Context, category string) ([]Row, error)
	// Row is one row by mpn and manufacturer (ignoring case);
	// ErrNotFound when there is none.
	Row(ctx context.Context, mpn, manufacturer string) (Row, error)
	// Categories count the rows of each category.
	Categories(ctx context.Context) (map[string]int, error)
	// Describe says what the store is and where it is kept.
	Describe() string
	Close() error
}
