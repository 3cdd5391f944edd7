package worker

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The build ID read from the running executable is the one the Go tool
// reports for it, so Temporal still gets an id that changes with the binary.
func TestGoBuildIDIsTheToolchains(t *testing.T) {
	got := goBuildID()
	if got == "" {
		t.Skip("no ELF build ID note on this platform; the SDK computes its checksum as before")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatalf("go tool buildid %s: %v", exe, err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("goBuildID() = %q, want %q (go tool buildid)", got, want)
	}
}
