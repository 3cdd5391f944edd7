//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The first start on a fresh machine, as `make run` makes it once
// deploy/install-solvers.sh has installed the solvers: `metaforge serve`
// with a data directory nobody used answers /healthz "healthy", every
// adapter reachable.
func TestFirstServeIsHealthy(t *testing.T) {
	ports := freePorts(t, 3)
	serve(t, ports[0], ports[1], ports[2])

	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[2]))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Status       string `json:"status"`
		Detail       string `json:"detail"`
		AdapterCount int    `json:"adapter_count"`
		Adapters     []struct {
			AdapterID string `json:"adapter_id"`
			Reachable bool   `json:"reachable"`
			Error     string `json:"error"`
		} `json:"adapters"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("/healthz is not a health report: %v: %s", err, body)
	}
	var down []string
	for _, a := range h.Adapters {
		if !a.Reachable {
			down = append(down, a.AdapterID+": "+a.Error)
		}
	}
	if len(down) > 0 {
		t.Errorf("%d of %d adapters unreachable on the first start; `make run` installs their solvers "+
			"(sudo bash deploy/install-solvers.sh):\n%s", len(down), len(h.Adapters), strings.Join(down, "\n"))
	}
	if h.Status != "healthy" || len(h.Adapters) == 0 || len(h.Adapters) != h.AdapterCount {
		t.Errorf("/healthz status %q with %d of %d adapters listed, want healthy with every adapter; detail: %s",
			h.Status, len(h.Adapters), h.AdapterCount, h.Detail)
	}
}
