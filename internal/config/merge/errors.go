package merge

import "errors"

// ErrInvalidTOML is wrapped by every error caused by a TOML document that
// does not parse.
var ErrInvalidTOML = errors.New("invalid TOML")

// ErrInvalidJSON is wrapped by every error caused by a JSON value that does
// not parse.
var ErrInvalidJSON = errors.New("invalid JSON")
