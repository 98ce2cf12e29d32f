package bootstrapsh

import "errors"

// Errors returned (wrapped) by KubeletExtraArgs.
var (
	// ErrUnterminatedQuote means a ' or " is never closed.
	ErrUnterminatedQuote = errors.New("unterminated quote")
	// ErrDanglingBackslash means the value ends with a lone backslash.
	ErrDanglingBackslash = errors.New("dangling backslash")
)
