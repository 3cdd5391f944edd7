package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// runApprovals lists the held calls waiting for a decision.
func runApprovals(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("approvals", flag.ContinueOnError)
	conn := registerQueueFlags(fs)
	project := fs.String("project", "", "only holds of this project")
	tool := fs.String("tool", "", "only holds of this tool")
	if err := fs.Parse(args); err != nil {
		return err
	}
	q, closeQueue, err := conn.open(ctx)
	if err != nil {
		return err
	}
	defer closeQueue()
	held, err := q.List(ctx, approvals.Filter{ProjectID: *project, ToolID: *tool})
	if err != nil {
		return err
	}
	if len(held) == 0 {
		fmt.Fprintln(out, "Nothing is waiting for a decision.")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "APPROVAL ID\tTOOL\tCALLER\tPROJECT\tHELD\tEXPIRES IN\tARGUMENTS")
	now := time.Now()
	for _, h := range held {
		args := strings.Join(strings.Fields(strings.ReplaceAll(h.Summary, "\n", ";")), " ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h.ApprovalID, h.ToolID, h.Caller, orDash(h.ProjectID),
			now.Sub(h.HeldSince).Round(time.Second), max(0, h.ExpiresAt.Sub(now)).Round(time.Second), args)
	}
	return tw.Flush()
}

// runDecide is `metaforge approve ID` and `metaforge reject ID`.
func runDecide(ctx context.Context, verb string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	conn := registerQueueFlags(fs)
	comment := fs.String("comment", "", "why, recorded with the decision")
	as := fs.String("as", currentUser(), "the approver's name (unverified: the CLI identifies nobody)")
	// Accept the id before or after the flags.
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if id == "" && fs.NArg() > 0 {
		id = fs.Arg(0)
	}
	if id == "" {
		return fmt.Errorf("usage: metaforge %s APPROVAL_ID [--comment TEXT] [--as NAME]; metaforge approvals lists the ids", verb)
	}
	if strings.TrimSpace(*as) == "" {
		return errors.New("--as: say who is deciding; a decision that names nobody is not recorded")
	}
	d := workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: *as, Route: workflows.RouteDashboard, Comment: *comment}
	if verb == "reject" {
		d.Outcome = workflows.OutcomeRejected
	}
	q, closeQueue, err := conn.open(ctx)
	if err != nil {
		return err
	}
	defer closeQueue()
	if _, err := q.Decide(ctx, id, d); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s by %s\n", id, d.Outcome, d.Approver)
	return nil
}

// queueFlags say where the Temporal holding the calls is: TEMPORAL_ADDRESS,
// else the metaforge serve on this machine.
type queueFlags struct {
	temporalPort *int
}

func registerQueueFlags(fs *flag.FlagSet) queueFlags {
	return queueFlags{temporalPort: fs.Int("temporal-port", 7233, "the local metaforge serve's Temporal port (ignored when TEMPORAL_ADDRESS is set)")}
}

func (f queueFlags) open(ctx context.Context) (approvals.Queue, func(), error) {
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if addr == "" {
		addr = fmt.Sprintf("127.0.0.1:%d", *f.temporalPort)
	}
	ns := os.Getenv("TEMPORAL_NAMESPACE")
	if ns == "" {
		ns = "default"
	}
	dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := client.DialContext(dialCtx, client.Options{HostPort: addr, Namespace: ns, Logger: quietSDKLogger()})
	if err != nil {
		return approvals.Queue{}, nil, fmt.Errorf("no Temporal answers at %s (%v): start metaforge serve, or set TEMPORAL_ADDRESS to the cluster holding the calls", addr, err)
	}
	return approvals.Queue{Client: c, Namespace: ns}, c.Close, nil
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// quietSDKLogger keeps the Temporal SDK's own chatter off a CLI's output.
func quietSDKLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}
