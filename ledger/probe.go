package ledger

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Off is what health reports when there is no ledger, and why.
func Off() string {
	return "ledger off: DATABASE_URL is not set, so sessions, approval decisions and who made each call are not recorded"
}

// Probe reports whether the database answers now, and its address (no
// password) for health to show. A nil ledger is off.
func (l *Ledger) Probe(ctx context.Context) (reachable bool, address string, err error) {
	if l == nil {
		return false, "", errors.New(Off())
	}
	if err := l.pool.Ping(ctx); err != nil {
		return false, l.address, fmt.Errorf("ledger: %s does not answer: %w", l.address, err)
	}
	return true, l.address, nil
}

// address is the database's address as a URL with no password. It is
// built from the parsed configuration rather than edited out of
// DATABASE_URL, so no form of the URL can leak one.
func address(cfg *pgconn.Config) string {
	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Path: "/" + cfg.Database}
	if strings.HasPrefix(cfg.Host, "/") { // a Unix socket's directory
		u.RawQuery = url.Values{"host": {cfg.Host}}.Encode()
	} else {
		u.Host = net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	}
	return u.String()
}
