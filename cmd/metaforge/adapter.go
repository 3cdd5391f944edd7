package main

import (
	"context"
	"flag"
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
	const adapterUsage = "usage: metaforge adapter ID, where ID is power (stdio) or spice (HTTP, see metaforge adapter spice -h)"
	if len(args) == 0 || builtIn[args[0]] == nil {
		return usageError(adapterUsage)
	}
	// A stdio adapter takes no flags; parsing them anyway answers -h and
	// refuses a stray argument instead of serving with it ignored.
	flags := flag.NewFlagSet("adapter "+args[0], flag.ContinueOnError)
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "usage: metaforge adapter %s (the stdio adapter protocol on stdin and stdout; no flags)\n", args[0])
	}
	if err := flags.Parse(args[1:]); err != nil {
		return flagError(err)
	}
	if flags.NArg() > 0 {
		return usageError(adapterUsage)
	}
	return adapters.ServeStdio(ctx, builtIn[args[0]](), os.Stdin, os.Stdout)
}
