package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/spice"
)

// shutdownGrace is how long calls in flight get to finish once the adapter
// server is told to stop; then their connections close, which cancels them.
// The main server retries an idempotent call that was cut off.
const shutdownGrace = 5 * time.Second

// runSpiceAdapter serves the spice adapter over HTTP (POST /mcp, GET
// /health) until ctx ends, so ngspice can run on another machine than the
// main server, which reaches it through METAFORGE_ADAPTER_SPICE_URL.
func runSpiceAdapter(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("adapter spice", flag.ContinueOnError)
	port := fs.Int("port", 8104, "port to listen on (0: any free port)")
	addr := fs.String("addr", "127.0.0.1", "address to listen on; 0.0.0.0 to be reached from other machines")
	roots := dirList{dirs: filepath.SplitList(os.Getenv("METAFORGE_ALLOWED_ROOTS"))}
	fs.Var(&roots, "allowed-root", "a `DIR` netlist_path and .include may read from; repeat for more "+
		"(default: METAFORGE_ALLOWED_ROOTS; none: unconfined)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("adapter spice takes flags only, not %q", fs.Args())
	}
	for _, dir := range roots.dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("--allowed-root %s is not a directory", dir)
		}
	}
	if len(roots.dirs) == 0 {
		fmt.Fprintln(stderr, "metaforge adapter spice: netlist_path is unconfined; pass --allowed-root to confine it")
	}
	return serveAdapterHTTP(ctx, spice.New(roots.dirs...), net.JoinHostPort(*addr, strconv.Itoa(*port)), stderr)
}

// serveAdapterHTTP serves a at addr until ctx ends, saying where on stderr.
func serveAdapterHTTP(ctx context.Context, a adapters.Adapter, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--addr and --port %s are not available: %w (stop what holds them or choose another)", addr, err)
	}
	srv := &http.Server{Handler: adapters.HTTPHandler(a), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "metaforge adapter %s %s: serving http://%s (POST /mcp, GET /health); point METAFORGE_ADAPTER_%s_URL at it\n",
		a.ID(), a.Version(), ln.Addr(), strings.ToUpper(a.ID()))

	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("adapter %s: HTTP server: %w", a.ID(), err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("adapter %s: HTTP server: %w", a.ID(), err)
	}
	return nil
}

// dirList is a repeatable directory flag. Given at all, it replaces its
// default rather than adding to it.
type dirList struct {
	dirs  []string
	given bool
}

func (d *dirList) String() string { return strings.Join(d.dirs, string(filepath.ListSeparator)) }

func (d *dirList) Set(dir string) error {
	if !d.given {
		d.dirs, d.given = nil, true
	}
	d.dirs = append(d.dirs, dir)
	return nil
}
