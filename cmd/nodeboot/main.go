// Command nodeboot turns EC2 user data (nodeadm NodeConfig, AL2 bootstrap.sh
// calls, Bottlerocket TOML) into a configured Kubernetes worker node.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nodeboot/nodeboot/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Setenv: os.Setenv, Environ: os.Environ})
	stop()
	os.Exit(code)
}
