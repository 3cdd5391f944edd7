package webfetch

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// allowedPorts are the only ports a fetch may reach: the web's own. Any
// other port is where a database, an admin console or a metrics endpoint
// listens, never a public page.
var allowedPorts = map[string]bool{"80": true, "443": true}

// checkURL refuses a URL the guard never fetches, whatever its host
// resolves to: a scheme other than http/https, a port other than 80/443
// (explicit, or implied by the scheme), credentials, a name that is this
// machine by definition (localhost), and a literal address that is not
// public. hop is "" for the URL asked for, else which redirect led here,
// so the refusal names it.
func checkURL(u *url.URL, hop string) error {
	where := u.Redacted()
	if hop != "" {
		where += " (" + hop + ")"
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return protocol.Invalid("web.fetch reads http and https URLs only; %s has scheme %q", where, u.Scheme)
	}
	if u.User != nil {
		return protocol.Invalid("web.fetch refuses URLs with credentials (user:password@); remove them from %s", where)
	}
	host := u.Hostname()
	if host == "" {
		return protocol.Invalid("%s names no host", where)
	}
	if port := portOf(u); !allowedPorts[port] {
		return protocol.Refusal("web.fetch reaches ports 80 and 443 only; %s asks for port %s", where, port)
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return protocol.Refusal("web.fetch refuses %s: %q is this machine (loopback), not the public web", where, host)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if reason := BlockedReason(addr); reason != "" {
			return protocol.Refusal("web.fetch refuses %s: %s is %s, not a public address", where, addr, reason)
		}
	}
	return nil
}

// portOf is the URL's port, explicit or implied by its scheme.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
