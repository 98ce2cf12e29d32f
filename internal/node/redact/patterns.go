package redact

import (
	"bytes"
	"regexp"
	"sync"
)

// patterns are the token regular expressions that are rare enough to be
// tried only when their hint occurs in a line. They are compiled on first
// use (nothing runs at package init).
type patterns struct {
	urlUserinfo *regexp.Regexp
	bearer      *regexp.Regexp
	eksToken    *regexp.Regexp
	jwt         *regexp.Regexp
}

var (
	patternsOnce sync.Once
	patternsVal  *patterns
)

// compiled returns the patterns, compiling them on first use.
func compiled() *patterns {
	patternsOnce.Do(func() { patternsVal = compile() })
	return patternsVal
}

func compile() *patterns {
	return &patterns{
		// user:password, where a password typed without percent-encoding
		// may hold a "/", or a userinfo without a colon (a token alone).
		// An "@" in the path of a URL with a port ("http://h:80/a@b") is
		// masked too: it cannot be told from such a password.
		urlUserinfo: regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)([^/@\s"'<>:]*:[^@\s"'<>]*|[^/@\s"'<>]+)@`),
		bearer:      regexp.MustCompile(`(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/=\-]{8,})`),
		eksToken:    regexp.MustCompile(`k8s-aws-v1\.[A-Za-z0-9_\-=]+`),
		jwt:         regexp.MustCompile(`eyJ[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*`),
	}
}

// maskTokens masks URL credentials and every token pattern in line.
func (r *redactor) maskTokens(line []byte, n int) []byte {
	p := compiled()
	found := func(rule Rule) func() { return func() { r.add(rule, n, "") } }
	if bytes.Contains(line, []byte("://")) && bytes.IndexByte(line, '@') >= 0 {
		line = replaceGroup(line, p.urlUserinfo, 2, found(RuleURLCredentials))
	}
	if indexFold(line, "bearer") >= 0 || indexFold(line, "basic") >= 0 {
		line = replaceGroup(line, p.bearer, 1, found(RuleAuthorization))
	}
	if bytes.Contains(line, []byte("k8s-aws-v1.")) {
		line = replaceGroup(line, p.eksToken, 0, found(RuleEKSToken))
	}
	if bytes.Contains(line, []byte("eyJ")) {
		line = replaceGroup(line, p.jwt, 0, found(RuleJWT))
	}
	for _, scan := range []struct {
		rule Rule
		find func([]byte) [][2]int
	}{{RuleBootstrapToken, bootstrapTokens}, {RuleAWSAccessKeyID, awsAccessKeyIDs}} {
		spans := scan.find(line)
		for range spans {
			r.add(scan.rule, n, "")
		}
		line = maskSpans(line, spans)
	}
	return line
}

// replaceGroup replaces submatch group of every match of re with Mask,
// calling found once per replacement.
func replaceGroup(line []byte, re *regexp.Regexp, group int, found func()) []byte {
	var out []byte
	done := 0
	for from := 0; from <= len(line); {
		m := re.FindSubmatchIndex(line[from:])
		if m == nil || m[2*group] < 0 {
			break
		}
		s, e := from+m[2*group], from+m[2*group+1]
		if isMask(line[s:e]) {
			from += max(m[1], 1)
			continue
		}
		out = append(out, line[done:s]...)
		out = append(out, Mask...)
		done, from = e, e
		found()
	}
	if out == nil {
		return line
	}
	return append(out, line[done:]...)
}
