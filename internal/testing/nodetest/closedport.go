package nodetest

import (
	"syscall"
	"testing"
)

// ClosedPort returns a loopback TCP port on which nothing listens and
// nothing else can listen until the test ends: the port is bound by a
// socket that never listens, so a connection to it is refused. (A port
// found by listening on :0 and closing can be handed out again at once, to
// a server the same test starts next.)
func ClosedPort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("closed port: socket: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("closed port: bind: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("closed port: getsockname: %v", err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}
