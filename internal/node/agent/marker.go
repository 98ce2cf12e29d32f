package agent

import (
	"fmt"

	"github.com/nodeboot/nodeboot/internal/node/apply"
	"github.com/nodeboot/nodeboot/internal/node/netmanager"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// markRunStarted writes the run-phase marker, as nodeadm does: from now on
// udev-net-manager leaves newly attached interfaces to the VPC CNI.
func (a *Agent) markRunStarted() error {
	marker := render.File{Path: netmanager.RunStartedMarker, Mode: 0o644, Data: []byte{}}
	if _, err := (apply.Writer{Root: a.Root}).Apply([]render.File{marker}, nil); err != nil {
		return fmt.Errorf("run phase marker: %w", err)
	}
	return nil
}
