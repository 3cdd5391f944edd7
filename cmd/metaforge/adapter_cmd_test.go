package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/spice"
)

var serving = regexp.MustCompile(`http://\S+`)

// `metaforge adapter spice` serves the adapter until its context ends, and
// the main server's client runs a simulation through it.
func TestSpiceAdapterCommand(t *testing.T) {
	if _, err := exec.LookPath("ngspice"); err != nil {
		t.Skip("ngspice is not installed: apt-get install ngspice")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderrR, stderrW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runSpiceAdapter(ctx, []string{"--port", "0", "--allowed-root", t.TempDir()}, stderrW)
		stderrW.Close()
	}()

	url := make(chan string, 1)
	go func() {
		said := bufio.NewScanner(stderrR)
		for said.Scan() {
			if m := serving.FindString(said.Text()); m != "" {
				url <- m
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderrR)
	}()
	var base string
	select {
	case base = <-url:
	case err := <-done:
		t.Fatalf("the command ended before serving: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the command printed no URL")
	}

	waitHealthy(t, base)
	c, err := adapters.DialHTTP(ctx, spice.AdapterID, base)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Call(ctx, spice.ToolRunSimulation, json.RawMessage(
		`{"netlist": "divider\nV1 in 0 DC 5\nR1 in out 1k\nR2 out 0 1k\n", "analysis_type": "op", "vectors": ["v(out)"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var out spice.Output
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Converged || len(out.Vectors) != 1 || math.Abs(float64(*out.Vectors[0].Final)-2.5) > 1e-6 {
		t.Fatalf("divider: %s", res.Data)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the command ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not stop when its context ended")
	}
	if resp, err := http.Get(base + "/health"); err == nil {
		resp.Body.Close()
		t.Fatalf("still serving after it stopped: HTTP %d", resp.StatusCode)
	}
}

func TestSpiceAdapterCommandRefusesBadFlags(t *testing.T) {
	stopped, cancel := context.WithCancel(context.Background())
	cancel() // a command that wrongly starts returns at once
	for _, args := range [][]string{
		{"--allowed-root", "/no/such/dir"},
		{"extra"},
		{"--port", "-1"},
	} {
		if err := runSpiceAdapter(stopped, args, io.Discard); err == nil {
			t.Errorf("%q was accepted", args)
		}
	}
}

// waitHealthy polls GET /health until it answers 200.
func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s/health: %v", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
