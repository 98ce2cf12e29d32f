package bootstrapsh

import "github.com/nodeboot/nodeboot/internal/config/kubeletflag"

// Errors returned (wrapped) by KubeletExtraArgs.
var (
	// ErrUnterminatedQuote means a ' or " is never closed.
	ErrUnterminatedQuote = kubeletflag.ErrUnterminatedQuote
	// ErrDanglingBackslash means the value ends with a lone backslash.
	ErrDanglingBackslash = kubeletflag.ErrDanglingBackslash
)
