package webfetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// guardedDialer opens every connection a fetch makes, for the first URL
// and each redirect alike. It resolves the host itself, refuses it when any
// of its addresses is not public, and dials the checked address, never
// the name: the address judged is the address reached, so a name that
// resolves to a public address when checked and to 127.0.0.1 when dialled
// (DNS rebinding) cannot slip through.
type guardedDialer struct {
	lookup func(ctx context.Context, network, host string) ([]net.IP, error)
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (d guardedDialer) DialContext(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, protocol.Invalid("web.fetch cannot read the address %q: %v", hostport, err)
	}
	if !allowedPorts[port] {
		return nil, protocol.Refusal("web.fetch reaches ports 80 and 443 only; %s asks for port %s", host, port)
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if reason := BlockedReason(a); reason != "" {
			if a.String() == host {
				return nil, protocol.Refusal("web.fetch refuses %s: %s, not a public address", host, reason)
			}
			return nil, protocol.Refusal("web.fetch refuses %s: it resolves to %s: %s, not a public address", host, a, reason)
		}
	}
	var errs []error
	for _, a := range addrs {
		conn, err := d.dial(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, protocol.Transient("web.fetch could not connect to %s: %v", host, errors.Join(errs...))
}

// resolve is the host's addresses: the address itself for a literal, else
// what the resolver answers (all of them are checked).
func (d guardedDialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	ips, err := d.lookup(ctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, protocol.Refusal("web.fetch cannot resolve %s: no such host", host)
		}
		return nil, protocol.Transient("web.fetch cannot resolve %s: %v", host, err)
	}
	out := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		if v4 := ip.To4(); v4 != nil {
			ip = v4
		}
		a, ok := netip.AddrFromSlice(ip)
		if !ok {
			return nil, protocol.Refusal("web.fetch refuses %s: the resolver answered an unreadable address %v", host, ip)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, protocol.Refusal("web.fetch cannot resolve %s: no addresses", host)
	}
	return out, nil
}
