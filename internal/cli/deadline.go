package cli

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultTimeout bounds a whole command run (--timeout). It is above the
// worst case of the dependencies one after the other (each IMDS lookup ends
// within 2 minutes, each EC2 or EKS call within its 5-minute budget, the
// node name wait within 6), so a dependency that fails reports its own
// error first and an AWS endpoint unreachable for up to 5 minutes is waited
// for; the deadline catches several slow ones in a row. The packaged
// systemd units give nodeboot a little longer (TimeoutStartSec=13min), so
// nodeboot, not systemd, says what ran out of time. See
// docs/failure-bounds.md.
const DefaultTimeout = 12 * time.Minute

// errTimedOut is the cancellation cause of the --timeout deadline.
var errTimedOut = errors.New("--timeout reached")

// withDeadline runs f under inv's --timeout and, when that deadline ended
// it, says so in front of f's error, which names what was being waited for.
func withDeadline(ctx context.Context, inv Invocation, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeoutCause(ctx, inv.timeout(), errTimedOut)
	defer cancel()
	err := f(ctx)
	if err != nil && errors.Is(context.Cause(ctx), errTimedOut) {
		return fmt.Errorf("%s did not finish within --timeout %s: %w", inv.Command, inv.timeout(), err)
	}
	return err
}

func (inv Invocation) timeout() time.Duration {
	if inv.Timeout > 0 {
		return inv.Timeout
	}
	return DefaultTimeout
}
