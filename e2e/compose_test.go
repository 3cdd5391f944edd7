//go:build unix

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/metaforge/metaforge/workflows"
)

// No Docker engine runs here, so the images cannot be built or started:
// these tests check deploy/compose.yaml and deploy/docker/ as far as that
// allows. Compose itself validates the file; the rest is read from it and
// from the Dockerfiles, and the task queues are compared with the ones the
// metaforge binary knows.

const (
	composeFile   = "../deploy/compose.yaml"
	dockerfileDir = "../deploy/docker"
)

// solverOf is what an image must install for a worker to serve a queue:
// a Debian package, or a pinned PyPI one. Queues not listed need nothing
// beyond the metaforge binary.
var solverOf = map[string]string{
	"adapter-calculix": "calculix-ccx",
	"adapter-gmsh":     "gmsh",
	"adapter-spice":    "ngspice",
	"adapter-cadquery": "cadquery==2.8.0",
	"adapter-physics":  "pybullet==3.2.7",
	"adapter-kicad":    "kicad",
	"adapter-freecad":  "freecad-python3",
	// usd-core's pxr, in the cadquery image's Python.
	"adapter-omniverse_usd": "usd-core==26.11",
	// libsdformat 12 for gazebo.validate_world's checker.
	"adapter-gazebo": "libsdformat12-12",
	// pdftotext and pdfinfo for knowledge.ingest's PDFs.
	"adapter-knowledge": "poppler-utils",
}

// composeConfig is the part of `docker-compose config` (the file with its
// anchors merged, variables substituted and paths made absolute) that the
// checks read.
type composeConfig struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       *composeBuild     `yaml:"build"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []composeVolume   `yaml:"volumes"`
	Healthcheck map[string]any    `yaml:"healthcheck"`
}

// composeVolume is a mount, in the short syntax docker-compose 1.29 prints
// ("source:target:mode") or the long one Compose v2 prints.
type composeVolume struct {
	Source string `yaml:"source"`
	Target string `yaml:"target"`
}

func (v *composeVolume) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		parts := strings.Split(n.Value, ":")
		if len(parts) < 2 {
			return fmt.Errorf("volume %q has no target", n.Value)
		}
		v.Source, v.Target = parts[0], parts[1]
		return nil
	}
	type plain composeVolume
	return n.Decode((*plain)(v))
}

type composeBuild struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

// dockerfilePath is the service's Dockerfile, or "" if it builds nothing.
func (s composeService) dockerfilePath() string {
	if s.Build == nil {
		return ""
	}
	return filepath.Join(s.Build.Context, cmp.Or(s.Build.Dockerfile, "Dockerfile"))
}

// TestComposeFile validates deploy/compose.yaml with docker-compose, then
// checks what compose cannot: every built image has its Dockerfile, every
// `metaforge worker` serves real queues from an image that has their
// solvers, every queue has a worker, and every MetaForge process shares one
// data volume at its --data-dir.
func TestComposeFile(t *testing.T) {
	dc, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Fatal("docker-compose is not on PATH; it validates deploy/compose.yaml (no Docker engine needed): apt-get install docker-compose (or bash deploy/test-deps.sh)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	validate := exec.CommandContext(ctx, dc, "-f", composeFile, "config", "-q")
	validate.Env = cleanEnv()
	if out, err := validate.CombinedOutput(); err != nil {
		t.Fatalf("docker-compose -f %s config -q: %v\n%s", composeFile, err, out)
	}
	render := exec.CommandContext(ctx, dc, "-f", composeFile, "config")
	render.Env = cleanEnv()
	out, err := render.Output()
	if err != nil {
		t.Fatalf("docker-compose -f %s config: %v", composeFile, err)
	}
	var cfg composeConfig
	if err := yaml.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("docker-compose config printed what the checks cannot read: %v\n%s", err, out)
	}

	known := knownQueues(t)
	served := map[string]string{} // queue -> service
	var dataVolume string
	var names []string
	for name := range cfg.Services {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := cfg.Services[name]
		dockerfile := s.dockerfilePath()
		var df string
		if dockerfile != "" {
			b, err := os.ReadFile(dockerfile)
			if err != nil {
				t.Errorf("service %s builds %s, which cannot be read: %v", name, dockerfile, err)
				continue
			}
			df = string(b)
			if froms := len(fromLines(df)); froms < 2 {
				t.Errorf("service %s: %s has %d FROM, want a multi-stage build (at least 2)", name, dockerfile, froms)
			}
		}
		argv := append(slices.Clone(s.Entrypoint), s.Command...)
		if len(s.Entrypoint) == 0 && df != "" {
			argv = append(dockerfileEntrypoint(df), s.Command...)
		}
		if len(argv) < 2 || argv[0] != "metaforge" {
			continue
		}
		if df == "" {
			t.Errorf("service %s runs metaforge from image %q, which no service builds from deploy/docker", name, s.Image)
		}
		// Every MetaForge process: Temporal from the environment, one shared
		// data volume at its --data-dir.
		if s.Environment["TEMPORAL_ADDRESS"] == "" {
			t.Errorf("service %s runs %v without TEMPORAL_ADDRESS: it would embed a Temporal of its own", name, argv[:2])
		}
		if s.Healthcheck == nil {
			t.Errorf("service %s has no healthcheck", name)
		}
		dataDir := flagValue(argv, "--data-dir")
		volume := volumeAt(s.Volumes, dataDir)
		switch {
		case dataDir == "":
			t.Errorf("service %s runs %v without --data-dir", name, argv)
		case volume == "":
			t.Errorf("service %s: no volume is mounted at its --data-dir %s (volumes %v)", name, dataDir, s.Volumes)
		case dataVolume == "":
			dataVolume = volume + ":" + dataDir
		case volume+":"+dataDir != dataVolume:
			t.Errorf("service %s mounts %s at %s; every MetaForge process must share %s, so a file one writes is found by another at the same path", name, volume, dataDir, dataVolume)
		}

		switch argv[1] {
		case "serve":
			if !slices.Contains(argv, "--no-worker") {
				t.Errorf("service %s runs serve with workers of its own (%v); the worker services serve the queues", name, argv)
			}
		case "worker":
			spec := flagValue(argv, "--queues")
			if spec == "" || spec == "all" {
				t.Errorf("service %s: metaforge worker --queues %q; name its queues", name, spec)
				continue
			}
			for _, q := range strings.Split(spec, ",") {
				if !slices.Contains(known, q) {
					t.Errorf("service %s serves %q, which metaforge does not know; known: %s", name, q, strings.Join(known, ", "))
					continue
				}
				if other, ok := served[q]; ok {
					t.Errorf("queue %s is served by both %s and %s; scale one service instead (docker-compose up --scale)", q, other, name)
				}
				served[q] = name
				if pkg, ok := solverOf[q]; ok && !installs(df, pkg) {
					t.Errorf("service %s serves %s, but its image (%s) does not install %s", name, q, dockerfile, pkg)
				}
			}
		}
	}
	for _, q := range known {
		if _, ok := served[q]; !ok {
			t.Errorf("no worker service serves queue %s: a call to it would wait forever; add it to a worker's --queues", q)
		}
	}
	t.Logf("%d services; %d queues, each served by one worker service; data volume %s", len(cfg.Services), len(served), dataVolume)
}

// TestComposeDockerfiles checks every Dockerfile in deploy/docker: a multi-stage
// build whose first stage, the same in all of them, builds the binary with
// the approved toolchain, copied into a final stage that runs metaforge as
// a user that is not root.
func TestComposeDockerfiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dockerfileDir, "*.Dockerfile"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Dockerfiles in %s (%v)", dockerfileDir, err)
	}
	var firstStage, firstFile string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		df := string(b)
		froms := fromLines(df)
		if len(froms) < 2 {
			t.Errorf("%s has %d FROM, want a multi-stage build", f, len(froms))
			continue
		}
		stage := buildStage(df)
		if !strings.Contains(stage, "GOTOOLCHAIN=go1.27.3") || !strings.Contains(stage, "go build") || !strings.Contains(stage, "./cmd/metaforge") {
			t.Errorf("%s: its first stage does not build ./cmd/metaforge with GOTOOLCHAIN=go1.27.3:\n%s", f, stage)
		}
		switch {
		case firstStage == "":
			firstStage, firstFile = stage, f
		case stage != firstStage:
			t.Errorf("%s's build stage differs from %s's; keep them the same, so building several images compiles MetaForge once", f, firstFile)
		}
		if !strings.Contains(df, "COPY --from=build ") {
			t.Errorf("%s does not copy the binary from the build stage", f)
		}
		if user := lastInstruction(df, "USER"); user == "" || user == "root" || user == "0" {
			t.Errorf("%s runs as %q; run as the metaforge user", f, cmp.Or(user, "root (no USER)"))
		}
		if ep := dockerfileEntrypoint(df); len(ep) == 0 || ep[0] != "metaforge" {
			t.Errorf("%s: ENTRYPOINT %v, want metaforge", f, ep)
		}
	}
}

// knownQueues asks the binary which task queues exist: `metaforge worker
// --queues bogus` against a `metaforge serve` refuses the name and lists
// them.
func knownQueues(t *testing.T) []string {
	t.Helper()
	ports := freePorts(t, 2)
	serve := start(t, "metaforge serve --no-worker", command(t, 2*time.Minute, binary, "serve", "--no-worker",
		"--data-dir", filepath.Join(t.TempDir(), "serve"),
		"--temporal-port", strconv.Itoa(ports[0]), "--ui-port", "0",
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", ports[1])))
	waitHealthy(t, serve, fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[1]), time.Minute)
	cmd := command(t, time.Minute, binary, "worker", "--queues", "bogus", "--data-dir", filepath.Join(t.TempDir(), "worker"))
	cmd.Env = append(cmd.Env, fmt.Sprintf("TEMPORAL_ADDRESS=127.0.0.1:%d", ports[0]))
	out, err := cmd.CombinedOutput()
	m := regexp.MustCompile(`unknown task queue "bogus" in --queues; known: (.+)`).FindStringSubmatch(string(out))
	if err == nil || m == nil {
		t.Fatalf("metaforge worker --queues bogus: %v, and no list of known queues:\n%s", err, out)
	}
	known := strings.Split(strings.TrimSpace(m[1]), ", ")
	if !slices.Contains(known, workflows.TaskQueue) || !slices.Contains(known, workflows.AdapterTaskQueue("spice")) {
		t.Fatalf("the known queues lack %s or adapter-spice: %v", workflows.TaskQueue, known)
	}
	return known
}

// dockerfileLines are a Dockerfile's instructions, continuation lines
// joined and comments dropped.
func dockerfileLines(df string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(df, "\n") {
		trimmed := strings.TrimSpace(l)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		out = append(out, cur.String())
		cur.Reset()
	}
	return out
}

func fromLines(df string) []string {
	var out []string
	for _, l := range dockerfileLines(df) {
		if strings.HasPrefix(strings.ToUpper(l), "FROM ") {
			out = append(out, l)
		}
	}
	return out
}

// buildStage is the first stage's instructions.
func buildStage(df string) string {
	var stage []string
	for _, l := range dockerfileLines(df) {
		if strings.HasPrefix(strings.ToUpper(l), "FROM ") && len(stage) > 0 {
			break
		}
		stage = append(stage, l)
	}
	return strings.Join(stage, "\n")
}

// lastInstruction is the argument of the last instruction named name.
func lastInstruction(df, name string) string {
	arg := ""
	for _, l := range dockerfileLines(df) {
		if f := strings.Fields(l); len(f) > 1 && strings.EqualFold(f[0], name) {
			arg = strings.TrimSpace(l[len(f[0]):])
		}
	}
	return arg
}

// dockerfileEntrypoint is the last ENTRYPOINT, in exec form.
func dockerfileEntrypoint(df string) []string {
	ep := lastInstruction(df, "ENTRYPOINT")
	var argv []string
	if err := yaml.Unmarshal([]byte(ep), &argv); err != nil {
		return nil
	}
	return argv
}

// installs says whether the Dockerfile's RUN instructions install pkg.
func installs(df, pkg string) bool {
	for _, l := range dockerfileLines(df) {
		if !strings.HasPrefix(strings.ToUpper(l), "RUN ") || !strings.Contains(l, " install ") {
			continue
		}
		if slices.Contains(strings.Fields(l), pkg) {
			return true
		}
	}
	return false
}

// flagValue is the value of --name in argv (as "--name value" or
// "--name=value").
func flagValue(argv []string, name string) string {
	for i, a := range argv {
		if a == name && i+1 < len(argv) {
			return argv[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// volumeAt is the source of the volume mounted at target.
func volumeAt(volumes []composeVolume, target string) string {
	for _, v := range volumes {
		if v.Target == target {
			return v.Source
		}
	}
	return ""
}
