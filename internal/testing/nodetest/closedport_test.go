package nodetest

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
)

// TestClosedPortRefusesAndStaysTaken: a connection is refused, and
// listening on the port fails while the test runs.
func TestClosedPortRefusesAndStaysTaken(t *testing.T) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ClosedPort(t)))
	if c, err := net.Dial("tcp", addr); err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dial %s = %v, want connection refused", addr, err)
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Fatalf("listen on %s succeeded; the port should stay taken", addr)
	}
}
