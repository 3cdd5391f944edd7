package physics

import (
	"math"

	"github.com/metaforge/metaforge/protocol"
)

// A call's simulation is bounded, so one call cannot hold a worker for
// long or answer with more than an agent can read: simulated time, steps
// and samples are capped, and a request past a cap is refused with what
// to change.
const (
	maxDurationS     = 60.0    // simulated seconds
	maxSteps         = 200_000 // time steps in one call
	maxSamples       = 5_000   // samples of a trajectory
	maxJointSamples  = 200_000 // samples times movable joints: the trajectory points in one result
	defaultTimeStepS = 1.0 / 240
	maxTimeStepS     = 0.02
	minTimeStepS     = 1e-5
	defaultSampleHz  = 60.0
	defaultMaxForce  = 100.0 // N m or N, for a driven joint whose URDF states no effort
	maxJointsNamed   = 100
	maxGravityMS2    = 1000.0
	timeoutSeconds   = 300
	maxMemoryMB      = 1024
	defaultGravityZ  = -9.81
)

// steps is how many time steps of ts make up duration (field's), within
// the caps.
func steps(field string, duration, ts float64) (int, error) {
	if !(duration > 0) || math.IsInf(duration, 0) {
		return 0, protocol.Invalid("%s must be a number of seconds above 0, got %g", field, duration)
	}
	if duration > maxDurationS {
		return 0, protocol.Invalid("%s is %g s, more than the %g s one call may simulate; simulate less, or split the run", field, duration, maxDurationS)
	}
	n := int(math.Round(duration / ts))
	if n < 1 {
		return 0, protocol.Invalid("%s (%g s) is shorter than one time step (time_step_s %g s); simulate longer or use a shorter step", field, duration, ts)
	}
	if n > maxSteps {
		return 0, protocol.Invalid("%s / time_step_s is %d steps, more than the %d one call may take; simulate less or use a longer time step (at most %g s)",
			field, n, maxSteps, maxTimeStepS)
	}
	return n, nil
}

// sampleEvery is the number of steps between samples at rate hz, for a run
// of n steps of ts of a robot with joints movable joints: the nearest
// whole number of steps (at least one), so the samples fall on steps; the
// result gives the interval that follows.
func sampleEvery(hz, ts float64, n, joints int) (int, error) {
	if !(hz > 0) || math.IsInf(hz, 0) {
		return 0, protocol.Invalid("sample_rate_hz must be above 0, got %g", hz)
	}
	if hz > 1/ts*(1+1e-9) {
		return 0, protocol.Invalid("sample_rate_hz %g is faster than the simulation's own rate (1/time_step_s = %g Hz); sample more slowly or use a shorter time step",
			hz, 1/ts)
	}
	every := max(1, int(math.Round(1/(hz*ts))))
	if samples := n/every + 1; samples > maxSamples {
		return 0, protocol.Invalid("duration_s x sample_rate_hz gives %d samples, more than the %d a result may carry; sample more slowly or simulate less",
			samples, maxSamples)
	}
	if samples := n/every + 1; samples*joints > maxJointSamples {
		return 0, protocol.Invalid("%d samples of %d movable joints is %d trajectory points, more than the %d a result may carry; sample more slowly or simulate less",
			samples, joints, samples*joints, maxJointSamples)
	}
	return every, nil
}
