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
	if bytes.IndexByte(line, '@') >= 0 {
		if bytes.Contains(line, []byte("://")) {
			line = r.replaceGroup(line, p.urlUserinfo, 2, RuleURLCredentials, n)
		}
		line = r.maskSpans(line, schemelessUserinfo(line), RuleURLCredentials, n)
	}
	if indexFold(line, "bearer") >= 0 || indexFold(line, "basic") >= 0 {
		line = r.replaceGroup(line, p.bearer, 1, RuleAuthorization, n)
	}
	if bytes.Contains(line, []byte("k8s-aws-v1.")) {
		line = r.replaceGroup(line, p.eksToken, 0, RuleEKSToken, n)
	}
	if bytes.Contains(line, []byte("eyJ")) {
		line = r.replaceGroup(line, p.jwt, 0, RuleJWT, n)
	}
	line = r.maskSpans(line, bootstrapTokens(line), RuleBootstrapToken, n)
	line = r.maskSpans(line, sessionTokens(line), RuleAWSSessionToken, n)
	if keys := awsAccessKeyIDs(line); len(keys) > 0 {
		line = r.maskSpans(line, keys, RuleAWSAccessKeyID, n)
		line = r.maskSpans(line, awsSecretKeys(line), RuleAWSSecretKey, n)
		line = r.maskSpans(line, longKeyRuns(line), RuleAWSSessionToken, n)
	}
	return line
}

// maskSpans masks the given [start, end) ranges (sorted) of line, one
// finding each.
func (r *redactor) maskSpans(line []byte, spans [][2]int, rule Rule, n int) []byte {
	if len(spans) == 0 {
		return line
	}
	var out []byte
	done := 0
	for _, s := range spans {
		if s[0] < done || isMask(line[s[0]:s[1]]) {
			continue
		}
		out = append(out, line[done:s[0]]...)
		out = append(out, Mask...)
		done = s[1]
		r.add(rule, n, "")
		r.masked(rule, "", line[s[0]:s[1]])
	}
	if out == nil {
		return line
	}
	return append(out, line[done:]...)
}

// replaceGroup replaces submatch group of every match of re with Mask,
// one finding each.
func (r *redactor) replaceGroup(line []byte, re *regexp.Regexp, group int, rule Rule, n int) []byte {
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
		r.add(rule, n, "")
		r.masked(rule, "", line[s:e])
	}
	if out == nil {
		return line
	}
	return append(out, line[done:]...)
}
