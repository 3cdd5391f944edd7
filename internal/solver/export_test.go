package solver

import "testing"

// FakeDockerEngine starts the fake Docker engine for the hostile path
// catalogue (package solver_test): its DOCKER_HOST, and how many
// containers it has been asked to make.
func FakeDockerEngine(t *testing.T) (host string, made func() int) {
	f := newFakeEngine(t)
	return f.host(), f.made
}
