//go:build !faultinject

package apply

// failpoint does nothing in release builds (see failpoint_on.go).
func failpoint(int) {}
