package ledger

import (
	"errors"
	"fmt"
	"strings"
)

// Reads return at most MaxLimit rows, DefaultLimit when the filter names
// no limit: the ledger only grows, and an unbounded read of it is a
// mistake.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// ErrBadFilter is wrapped by the errors of a read whose filter cannot be
// answered (a limit out of range); the message says what to fix.
var ErrBadFilter = errors.New("ledger: bad filter")

// limit is the number of rows a filter's Limit asks for.
func limit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultLimit, nil
	case n < 0 || n > MaxLimit:
		return 0, badLimit(fmt.Sprint(n))
	}
	return n, nil
}

func badLimit(given string) error {
	return fmt.Errorf("%w: limit %s: give a whole number from 1 to %d (default %d)", ErrBadFilter, given, MaxLimit, DefaultLimit)
}

// where builds a WHERE clause of equalities from a filter's non-empty
// fields, with its arguments numbered $1, $2, ...
type where struct {
	conds []string
	args  []any
}

// eq adds column = value unless value is empty (an unset filter field).
func (w *where) eq(column, value string) {
	if value == "" {
		return
	}
	w.args = append(w.args, value)
	w.conds = append(w.conds, fmt.Sprintf("%s = $%d", column, len(w.args)))
}

// clause is " WHERE a = $1 AND ...", or "" when nothing filters.
func (w *where) clause() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}
