package e2e

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// freePorts picks n distinct free ports on 127.0.0.1 below the kernel's
// ephemeral range. A port the kernel handed out with ":0" and this test then
// released is soon handed to another process (an outgoing connection, or
// the embedded Temporal's own ":0" ports in a server started by a parallel
// test), and `metaforge serve` then loses the race for it. Ports below
// ip_local_port_range are never chosen by the kernel, so only another test
// picking the same random number could take one, and the listen check here
// rules out any that are already held.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	low, high := testPortRange()
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for attempts := 0; len(ports) < n; attempts++ {
		if attempts > 1000 {
			t.Fatalf("no %d free ports found in [%d, %d)", n, low, high)
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", low+rand.IntN(high-low)))
		if err != nil {
			continue // held by something else: draw another
		}
		held = append(held, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// testPortRange is where freePorts draws from: from 10000 up to the start of
// the kernel's ephemeral range (32768 when it cannot be read).
func testPortRange() (low, high int) {
	low, high = 10000, 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return low, high
	}
	if f := strings.Fields(string(b)); len(f) == 2 {
		if ephemeralLow, err := strconv.Atoi(f[0]); err == nil && ephemeralLow > low+1000 {
			high = ephemeralLow
		}
	}
	return low, high
}
