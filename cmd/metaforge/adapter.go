package main

import (
	"context"
	"fmt"
	"os"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/power"
)

// runAdapter serves one built-in adapter over the stdio adapter protocol
// (tool/list, tool/call, health/check), so it can run as its own process or
// container like an adapter written in any other language.
func runAdapter(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "spice" {
		return runSpiceAdapter(ctx, args[1:], os.Stderr)
	}
	builtIn := map[string]func() adapters.Adapter{
		"power": func() adapters.Adapter { return power.New() },
	}
	if len(args) != 1 || builtIn[args[0]] == nil {
		return fmt.Errorf("usage: metaforge adapter ID, where ID is power (stdio) or spice (HTTP, see metaforge adapter spice -h)")
	}
	return adapters.ServeStdio(ctx, builtIn[args[0]](), os.Stdin, os.Stdout)
}
