// Package lazyregexp is a regular expression compiled on first use rather
// than at package initialisation, so that the nodeboot binary, which starts
// on every node's boot path, pays only for the expressions a boot needs.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled the first time it is used. It is
// safe for concurrent use.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

// New returns the expression expr, not yet compiled. Like
// regexp.MustCompile, the first use panics if expr does not compile: expr is
// a constant of the program, so that is a bug the tests catch.
func New(expr string) *Regexp {
	return &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// MatchString reports whether s contains a match.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// String returns the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// FindSubmatch is regexp.Regexp.FindSubmatch.
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }
