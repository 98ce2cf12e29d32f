// Command nodeboot-access checks, before node groups launch, whether their
// nodes will authenticate to an EKS cluster and as whom (aws-auth, access
// entries, the authentication mode, Windows and VPC CNI prerequisites), and
// fixes the node roles' mappings. See internal/cluster/access and
// docs/identity.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nodeboot/nodeboot/internal/cluster/access/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args[1:], app.Env{Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
