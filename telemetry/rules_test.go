package telemetry

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// rulesFile is the Prometheus rule file alerting on these metrics.
const rulesFile = "../deploy/alerting/rules.yaml"

// alertRule is the part of a Prometheus alerting rule this test reads.
type alertRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// metricLabels is every metric Metrics exposes, with its labels; the
// rules may name nothing else.
var metricLabels = map[string][]string{
	"metaforge_mcp_tool_call_total":            {"tool_id", "status", "client"},
	"metaforge_mcp_tool_call_duration_seconds": {"tool_id", "status"},
	"metaforge_mcp_error_total":                {"tool_id", "error_class", "client"},
	"metaforge_mcp_adapter_probe_total":        {"adapter_id", "result"},
}

// labelValues are the values a label with a fixed set can take.
var labelValues = map[string][]string{
	"status":      {StatusSuccess, StatusError},
	"result":      {ProbeReachable, ProbeUnreachable},
	"error_class": Classes(),
}

var (
	metricRef   = regexp.MustCompile(`\bmetaforge_\w+`)
	selector    = regexp.MustCompile(`\b(metaforge_\w+)\{([^}]*)\}`)
	matcher     = regexp.MustCompile(`(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"`)
	grouping    = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	labelsInTpl = regexp.MustCompile(`\$labels\.(\w+)`)
)

func loadRules(t *testing.T) []alertRule {
	t.Helper()
	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Name  string      `yaml:"name"`
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	var rules []alertRule
	for _, g := range file.Groups {
		if g.Name == "" {
			t.Errorf("a group has no name")
		}
		rules = append(rules, g.Rules...)
	}
	return rules
}

func TestAlertRules(t *testing.T) {
	rules := loadRules(t)
	var names []string
	for _, r := range rules {
		names = append(names, r.Alert)
	}
	slices.Sort(names)
	if want := []string{"McpAdapterUnreachable", "McpApprovalsTimingOut", "McpErrorRateHigh", "McpUnexpectedErrors"}; !slices.Equal(names, want) {
		t.Fatalf("alerts = %q, want %q", names, want)
	}
	for _, r := range rules {
		checkExpr(t, r)
		if d, err := time.ParseDuration(r.For); err != nil || d <= 0 {
			t.Errorf("%s: for %q is not a duration", r.Alert, r.For)
		}
		if s := r.Labels["severity"]; s != "warning" && s != "critical" {
			t.Errorf("%s: severity %q", r.Alert, s)
		}
		for _, a := range []string{"summary", "description"} {
			if strings.TrimSpace(r.Annotations[a]) == "" {
				t.Errorf("%s: no %s", r.Alert, a)
			}
		}
	}
}

// checkExpr holds r's expression to the metrics as they are: their names,
// their labels, the values fixed-set labels take, and an alert's
// templates naming only labels its expression keeps.
func checkExpr(t *testing.T, r alertRule) {
	used := map[string]bool{}
	for _, m := range metricRef.FindAllString(r.Expr, -1) {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count"), "_sum")
		if _, ok := metricLabels[base]; !ok {
			t.Errorf("%s: %s is not a metric this server exposes", r.Alert, m)
			continue
		}
		used[base] = true
	}
	if len(used) == 0 {
		t.Errorf("%s: its expression names no metaforge metric", r.Alert)
	}
	for _, sel := range selector.FindAllStringSubmatch(r.Expr, -1) {
		metric := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(sel[1], "_bucket"), "_count"), "_sum")
		for _, m := range matcher.FindAllStringSubmatch(sel[2], -1) {
			label, op, value := m[1], m[2], m[3]
			if !slices.Contains(metricLabels[metric], label) {
				t.Errorf("%s: %s has no label %s", r.Alert, metric, label)
			}
			fixed, ok := labelValues[label]
			if !ok {
				continue
			}
			values := []string{value}
			if op == "=~" || op == "!~" {
				values = strings.Split(value, "|")
			}
			for _, v := range values {
				if !slices.Contains(fixed, v) {
					t.Errorf("%s: %s never takes the value %q (it takes %q)", r.Alert, label, v, fixed)
				}
			}
		}
	}
	kept := map[string]bool{}
	for _, g := range grouping.FindAllStringSubmatch(r.Expr, -1) {
		for _, label := range strings.Split(g[1], ",") {
			label = strings.TrimSpace(label)
			for metric := range used {
				if !slices.Contains(metricLabels[metric], label) {
					t.Errorf("%s: groups by %s, which %s does not have", r.Alert, label, metric)
				}
			}
			kept[label] = true
		}
	}
	for _, text := range r.Annotations {
		for _, m := range labelsInTpl.FindAllStringSubmatch(text, -1) {
			if !kept[m[1]] {
				t.Errorf("%s: an annotation names $labels.%s, which its expression aggregates away", r.Alert, m[1])
			}
		}
	}
}
