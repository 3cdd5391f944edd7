package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/metaforge/metaforge/approvals"
)

// runApprovals lists the held calls waiting for a decision, through the
// serve's REST API: the arguments are shown only to a person who may
// decide, as on the page.
func runApprovals(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("approvals", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	project := fs.String("project", "", "only holds of this project")
	tool := fs.String("tool", "", "only holds of this tool")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	q := url.Values{}
	if *project != "" {
		q.Set("project", *project)
	}
	if *tool != "" {
		q.Set("tool", *tool)
	}
	var list struct {
		Approvals       []approvals.HeldCall `json:"approvals"`
		ArgumentsHidden bool                 `json:"arguments_hidden"`
		HowToSeeThem    string               `json:"how_to_see_them"`
	}
	path := "/v1/approvals"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	if err := c.do(ctx, http.MethodGet, path, nil, &list); err != nil {
		return err
	}
	if len(list.Approvals) == 0 {
		fmt.Fprintln(out, "Nothing is waiting for a decision.")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "APPROVAL ID\tTOOL\tCALLER\tPROJECT\tHELD\tEXPIRES IN\tARGUMENTS")
	now := time.Now()
	for _, h := range list.Approvals {
		args := strings.Join(strings.Fields(strings.ReplaceAll(h.Summary, "\n", ";")), " ")
		if list.ArgumentsHidden {
			args = "(hidden)"
		}
		caller := h.Caller
		if h.Requester != "" {
			caller += " " + h.Requester
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h.ApprovalID, h.ToolID, caller, orDash(h.ProjectID),
			now.Sub(h.HeldSince).Round(time.Second), max(0, h.ExpiresAt.Sub(now)).Round(time.Second), args)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if list.ArgumentsHidden {
		fmt.Fprintln(out, list.HowToSeeThem)
	}
	return nil
}

// runDecide is `metaforge approve ID` and `metaforge reject ID`, through
// the serve's REST API as the local operator (or a bearer token's subject).
func runDecide(ctx context.Context, verb string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	conn := registerServeFlags(fs)
	comment := fs.String("comment", "", "why, recorded with the decision")
	as := fs.String("as", currentUser(), "your name, recorded as operator:NAME when you decide with the operator token (a bearer token's subject is recorded as it is)")
	// Accept the id before or after the flags.
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if id == "" && fs.NArg() > 0 {
		id = fs.Arg(0)
	}
	if id == "" {
		return usageError(fmt.Sprintf("usage: metaforge %s APPROVAL_ID [--comment TEXT] [--as NAME] [--data-dir DIR] [--url URL] [--token TOKEN]; metaforge approvals lists the ids", verb))
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var res struct {
		Outcome          string `json:"outcome"`
		Approver         string `json:"approver"`
		ApproverVerified bool   `json:"approver_verified"`
	}
	if err := decideHold(ctx, c, id, verb, *as, *comment, &res); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s by %s\n", id, res.Outcome, res.Approver)
	return nil
}

// decideHold posts one decision on a held call.
func decideHold(ctx context.Context, c *serveClient, id, decision, as, comment string, into any) error {
	return c.do(ctx, http.MethodPost, "/v1/approvals/"+url.PathEscape(id)+"/decision",
		map[string]string{"decision": decision, "approver": as, "comment": comment}, into)
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
	env, err := readTemporalEnv()
	if err != nil {
		return approvals.Queue{}, nil, err
	}
	copts := client.Options{HostPort: env.address, Namespace: env.namespace, Logger: quietSDKLogger()}
	if copts.HostPort == "" {
		// The local serve's embedded server: plaintext on loopback.
		copts.HostPort = fmt.Sprintf("127.0.0.1:%d", *f.temporalPort)
	} else {
		env.security.Apply(&copts)
	}
	if copts.Namespace == "" {
		copts.Namespace = "default"
	}
	dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := client.DialContext(dialCtx, copts)
	if err != nil {
		return approvals.Queue{}, nil, fmt.Errorf("no Temporal answers at %s (%v): start metaforge serve, or set TEMPORAL_ADDRESS (and its TLS and API key variables) to the cluster holding the calls", copts.HostPort, err)
	}
	return approvals.Queue{Client: c, Namespace: copts.Namespace}, c.Close, nil
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
