// Package telemetry is how the MCP surface says which plugin tool is
// failing, for whom, and why: four Prometheus metrics, spans for every
// request, and the error classes both are labelled with.
//
// Telemetry never fails a call. Nothing here returns an error into a call
// path or panics on what a caller passes it; a nil *Metrics or *Tracing
// records nothing, so a server built without them needs no branches.
package telemetry
