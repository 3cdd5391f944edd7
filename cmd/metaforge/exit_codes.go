package main

import (
	"errors"
	"flag"
	"net/http"
)

// usageError is a command asked wrongly (a missing argument, an unknown
// verb): it exits 2, as a flag error does, so a script tells "fix what
// you asked" from "not found" (1).
func usageError(text string) error {
	return &saidStatus{status: 2, err: errors.New(text)}
}

// statusOf is the status a command's error ends with: 1 for what is not
// there or not reachable, 2 for what serve refused (a bad argument, a
// write it does not allow: any 4xx but 404) and for a usage error.
func statusOf(err error) int {
	var said *saidStatus
	if errors.As(err, &said) {
		return said.status
	}
	var refused *serveError
	if errors.As(err, &refused) && refused.Status/100 == 4 && refused.Status != http.StatusNotFound {
		return 2
	}
	return 1
}

// flagError is a FlagSet's parse error as a usage error (exit 2); -h is
// left as it is, so main ends it quietly after the flags were printed.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usageError(err.Error())
}
