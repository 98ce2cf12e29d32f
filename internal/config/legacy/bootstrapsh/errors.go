package bootstrapsh

import "github.com/nodeboot/nodeboot/internal/config/validate"

// Errors returned (wrapped) by KubeletExtraArgs.
var (
	// ErrUnterminatedQuote means a ' or " is never closed.
	ErrUnterminatedQuote = validate.ErrUnterminatedQuote
	// ErrDanglingBackslash means the value ends with a lone backslash.
	ErrDanglingBackslash = validate.ErrDanglingBackslash
)
