package main

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/metaforge/metaforge/adapters/calculix"
)

// feaMaxMemoryMB is the deployment's maximum memory for one FEA solve
// (calculix.run_fea, run_thermal): METAFORGE_FEA_MAX_MEMORY_MB, or half
// this machine's memory, and never less than a call's default. A call's
// max_memory_mb may ask for up to it; the sandbox holds each solve to what
// its call asked.
func feaMaxMemoryMB() (int, error) {
	if v := os.Getenv(calculix.MaxMemoryEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < calculix.DefaultCallMemoryMB {
			return 0, fmt.Errorf("%s %q: give a whole number of MB, at least %d (a call's default)", calculix.MaxMemoryEnv, v, calculix.DefaultCallMemoryMB)
		}
		return n, nil
	}
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return calculix.DefaultCallMemoryMB, nil
	}
	half := int(uint64(si.Totalram) * uint64(si.Unit) / 2 >> 20)
	return max(half, calculix.DefaultCallMemoryMB), nil
}
