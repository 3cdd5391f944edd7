package webfetch

import "net/netip"

// blockedRange is a range of addresses a fetch must never reach, with the
// reason an agent is told.
type blockedRange struct {
	prefix netip.Prefix
	reason string
}

// blockedRanges are the non-public ranges: what lies behind them is this
// machine, its network or its cloud's metadata service, never the public
// web. IPv4-mapped and the other IPv6 forms that carry an IPv4 address are
// unwrapped before these are checked (embeddedIPv4).
var blockedRanges = func() []blockedRange {
	table := []struct{ cidr, reason string }{
		{"0.0.0.0/8", "\"this network\" (0.0.0.0/8)"},
		{"10.0.0.0/8", "private (RFC 1918)"},
		{"100.64.0.0/10", "carrier-grade NAT shared space (100.64.0.0/10)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local (169.254.0.0/16, where cloud metadata services answer)"},
		{"172.16.0.0/12", "private (RFC 1918)"},
		{"192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)"},
		{"192.0.2.0/24", "documentation (TEST-NET-1)"},
		{"192.168.0.0/16", "private (RFC 1918)"},
		{"198.18.0.0/15", "benchmarking (198.18.0.0/15)"},
		{"198.51.100.0/24", "documentation (TEST-NET-2)"},
		{"203.0.113.0/24", "documentation (TEST-NET-3)"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved (240.0.0.0/4, incl. broadcast)"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible IPv6 (deprecated)"},
		{"100::/64", "discard-only (100::/64)"},
		{"2001::/32", "Teredo tunnelling (2001::/32)"},
		{"2001:db8::/32", "documentation (2001:db8::/32)"},
		{"fc00::/7", "unique local (fc00::/7, IPv6's private range)"},
		{"fe80::/10", "link-local (fe80::/10)"},
		{"fec0::/10", "site-local (fec0::/10, deprecated)"},
		{"ff00::/8", "multicast"},
	}
	out := make([]blockedRange, len(table))
	for i, r := range table {
		out[i] = blockedRange{prefix: netip.MustParsePrefix(r.cidr), reason: r.reason}
	}
	return out
}()

// Nat64 and 6to4 carry an IPv4 address inside an IPv6 one; a gateway
// turns them into that IPv4 address, so it is the one checked.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// BlockedReason says why addr is not a public address a fetch may reach
// ("loopback", "private (RFC 1918)", ...), or "" when it is one. An
// IPv4-mapped (::ffff:a.b.c.d), NAT64 or 6to4 address is judged by the
// IPv4 address it carries.
func BlockedReason(addr netip.Addr) string {
	addr = addr.WithZone("")
	if v4, ok := embeddedIPv4(addr); ok {
		if r := BlockedReason(v4); r != "" {
			return r + ", carried in the IPv6 address " + addr.String()
		}
		if addr.Is4In6() {
			return ""
		}
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(addr) {
			return r.reason
		}
	}
	if !addr.IsValid() || addr.IsUnspecified() {
		return "unspecified"
	}
	return ""
}

// embeddedIPv4 is the IPv4 address an IPv4-mapped, NAT64 or 6to4 address
// carries.
func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	if addr.Is4In6() {
		return addr.Unmap(), true
	}
	if !addr.Is6() {
		return netip.Addr{}, false
	}
	b := addr.As16()
	switch {
	case nat64.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}
