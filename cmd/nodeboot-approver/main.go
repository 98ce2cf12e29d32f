// Command nodeboot-approver approves kubelet serving certificate signing
// requests whose SANs match the requesting Node's addresses and, on EC2,
// the addresses of the instance behind the Node, and denies the others.
// See internal/cluster/approver.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
