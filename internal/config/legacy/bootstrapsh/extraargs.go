package bootstrapsh

import "github.com/nodeboot/nodeboot/internal/config/kubeletflag"

// KubeletExtraArgs splits the value of --kubelet-extra-args into words the
// way the kubelet receives them: bootstrap.sh writes the value into a
// systemd drop-in as KUBELET_EXTRA_ARGS, and systemd splits
// $KUBELET_EXTRA_ARGS on blanks, removing quotes (kubeletflag.SystemdWords:
// single quotes keep everything literally; inside double quotes a
// backslash escapes " \ $ and `; outside quotes it escapes any character;
// an empty quoted string is a word of its own; nothing is expanded).
//
// Errors wrap ErrUnterminatedQuote or ErrDanglingBackslash.
func KubeletExtraArgs(s string) ([]string, error) { return kubeletflag.SystemdWords(s) }
