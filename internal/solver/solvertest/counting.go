// Package solvertest gives adapter tests a solver runtime that counts the
// commands it runs, so a test can tell that a refused input never started
// its solver.
package solvertest

import (
	"context"
	"sync/atomic"

	"github.com/metaforge/metaforge/internal/solver"
)

// Counting runs commands in its Runtime and counts them.
type Counting struct {
	solver.Runtime
	runs atomic.Int32
}

// Process is a Counting over the process runtime.
func Process() *Counting { return &Counting{Runtime: solver.Process{}} }

// Exec counts the command, then runs it.
func (c *Counting) Exec(ctx context.Context, cmd solver.Command, p solver.Policy) (solver.Output, error) {
	c.runs.Add(1)
	return c.Runtime.Exec(ctx, cmd, p)
}

// Runs is how many commands were run.
func (c *Counting) Runs() int32 { return c.runs.Load() }
