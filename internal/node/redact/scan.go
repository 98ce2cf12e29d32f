package redact

import (
	"bytes"
	"slices"
)

// Hand-written scanners for the patterns tried on every line: they are
// linear and allocation-free, where regular expressions cost several times
// more on large logs.

func isKeyChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' }

// yamlKV locates the key and value of a YAML mapping line
// ("  - key: value", "key:", "'quoted key': v"). vs is -1 without a value.
type yamlKV struct {
	ks, ke, vs, ve int
}

// parseYAMLKey parses line as a YAML mapping line.
func parseYAMLKey(line []byte) (yamlKV, bool) {
	kv := yamlKV{ks: skipListMarkers(line), vs: -1}
	var ok bool
	if kv.ke, ok = yamlKeyEnd(line, kv.ks); !ok {
		return kv, false
	}
	j := kv.ke
	for j < len(line) && isSpaceByte(line[j]) {
		j++
	}
	if j >= len(line) || line[j] != ':' {
		return kv, false
	}
	j++
	rest := bytes.TrimRight(line[j:], " \t")
	switch {
	case len(rest) == 0:
		return kv, true
	case !isSpaceByte(rest[0]):
		return kv, false // "key:value", "https://"
	}
	k := j
	for k < len(line) && isSpaceByte(line[k]) {
		k++
	}
	kv.vs, kv.ve = k, j+len(rest)
	return kv, true
}

// skipListMarkers returns where a line's key starts, after its
// indentation and any "- " list markers.
func skipListMarkers(line []byte) int {
	i := 0
	for {
		for i < len(line) && isSpaceByte(line[i]) {
			i++
		}
		if i+1 < len(line) && line[i] == '-' && isSpaceByte(line[i+1]) {
			i += 2
			continue
		}
		return i
	}
}

// yamlKeyEnd returns the end of a plain or quoted key starting at i.
func yamlKeyEnd(line []byte, i int) (int, bool) {
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		end := bytes.IndexByte(line[i+1:], line[i])
		return i + 1 + end + 1, end >= 0
	}
	j := i
	for j < len(line) && (isKeyChar(line[j]) || line[j] == '/') {
		j++
	}
	return j, j > i
}

// span is a key and its value inside a line.
type span struct{ ks, ke, vs, ve int }

// assignments finds key=value pairs: environment and TOML assignments,
// query parameters, --flag=value, klog's key="value". Every '=' is tried,
// so KEY=value inside a quoted value is found too.
func assignments(line []byte) []span {
	var out []span
	for i := bytes.IndexByte(line, '='); i >= 0; {
		ke := i
		for ke > 0 && isSpaceByte(line[ke-1]) {
			ke--
		}
		ks := ke
		for ks > 0 && isKeyChar(line[ks-1]) {
			ks--
		}
		vs := i + 1
		for vs < len(line) && isSpaceByte(line[vs]) {
			vs++
		}
		ve := valueEnd(line, vs)
		if ks < ke && vs < ve {
			out = append(out, span{ks, ke, vs, ve})
		}
		next := bytes.IndexByte(line[i+1:], '=')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// valueEnd returns where a value starting at vs ends: the closing quote of
// a quoted value, else the first separator.
func valueEnd(line []byte, vs int) int {
	if vs >= len(line) {
		return vs
	}
	if q := line[vs]; q == '"' || q == '\'' {
		for j := vs + 1; j < len(line); j++ {
			if line[j] == '\\' && q == '"' {
				j++
				continue
			}
			if line[j] == q {
				return j + 1
			}
		}
		return vs // unterminated: not a value
	}
	j := vs
	for j < len(line) {
		switch line[j] {
		case ' ', '\t', '"', '\'', ',', ';', '&', '}', ']', '=':
			return j
		}
		j++
	}
	return j
}

// jsonPairs finds "key": "value" members.
func jsonPairs(line []byte) []span {
	var out []span
	for i := 0; i < len(line); {
		c := bytes.IndexByte(line[i:], ':')
		if c < 0 {
			break
		}
		c += i
		i = c + 1
		ke := c
		for ke > 0 && isSpaceByte(line[ke-1]) {
			ke--
		}
		if ke == 0 || line[ke-1] != '"' {
			continue
		}
		ks := ke - 1
		for ks > 0 && (line[ks-1] != '"' || ks >= 2 && line[ks-2] == '\\') {
			ks--
		}
		if ks == 0 {
			continue
		}
		vs := c + 1
		for vs < len(line) && isSpaceByte(line[vs]) {
			vs++
		}
		if vs >= len(line) || line[vs] != '"' {
			continue
		}
		ve, closed := stringEnd(line, vs)
		if !closed {
			continue
		}
		out = append(out, span{ks - 1, ke, vs, ve})
		i = ve
	}
	return out
}

// spacedFlags finds "--flag value" (the value not itself a flag).
func spacedFlags(line []byte) []span {
	var out []span
	for i := 0; i+2 < len(line); i++ {
		if line[i] != '-' || line[i+1] != '-' || i > 0 && !isSpaceByte(line[i-1]) {
			continue
		}
		ke := i + 2
		for ke < len(line) && (isKeyChar(line[ke]) && line[ke] != '.') {
			ke++
		}
		if ke == i+2 || ke >= len(line) || !isSpaceByte(line[ke]) {
			continue
		}
		vs := ke
		for vs < len(line) && isSpaceByte(line[vs]) {
			vs++
		}
		if vs >= len(line) || line[vs] == '-' {
			continue
		}
		ve := valueEnd(line, vs)
		if q := line[vs]; q != '"' && q != '\'' {
			for ve < len(line) && !isSpaceByte(line[ve]) {
				ve++
			}
		}
		if ve > vs {
			out = append(out, span{i, ke, vs, ve})
			i = ve - 1
		}
	}
	return out
}

// bootstrapTokens finds <6 of [a-z0-9]>.<16 of [a-z0-9]> standing alone.
func bootstrapTokens(line []byte) [][2]int {
	var out [][2]int
	for i := bytes.IndexByte(line, '.'); i >= 0; {
		s, e := i-6, i+17
		if s >= 0 && e <= len(line) && lowerAlnum(line[s:i]) && lowerAlnum(line[i+1:e]) &&
			(s == 0 || !isTokenNeighbour(line[s-1])) && (e == len(line) || !isTokenNeighbour(line[e])) {
			out = append(out, [2]int{s, e})
		}
		next := bytes.IndexByte(line[i+1:], '.')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

func lowerAlnum(b []byte) bool {
	for _, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func isTokenNeighbour(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// awsKeyPrefixes start AWS access key IDs (and other unique IDs of the
// same shape, which are as identifying).
var awsKeyPrefixes = [...]string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA", "ABIA", "ACCA"}

// awsAccessKeyIDs finds 20-character AWS access key IDs standing alone.
func awsAccessKeyIDs(line []byte) [][2]int {
	var out [][2]int
	for i := 0; i+20 <= len(line); i++ {
		if line[i] != 'A' || i > 0 && isAlnum(line[i-1]) {
			continue
		}
		if !hasAWSKeyPrefix(line[i:i+4]) || !upperAlnum(line[i+4:i+20]) || i+20 < len(line) && isAlnum(line[i+20]) {
			continue
		}
		out = append(out, [2]int{i, i + 20})
		i += 19
	}
	return out
}

func hasAWSKeyPrefix(b []byte) bool {
	for _, p := range awsKeyPrefixes {
		if string(b) == p {
			return true
		}
	}
	return false
}

func upperAlnum(b []byte) bool {
	for _, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// indexFold is a case-insensitive bytes.Index for an ASCII lower-case word.
func indexFold(b []byte, word string) int {
	first, upper := word[0], word[0]-('a'-'A')
	for i := 0; i+len(word) <= len(b); {
		j := bytes.IndexAny(b[i:len(b)-len(word)+1], string([]byte{first, upper}))
		if j < 0 {
			return -1
		}
		i += j
		k := 1
		for k < len(word) && b[i+k]|0x20 == word[k] {
			k++
		}
		if k == len(word) {
			return i
		}
		i++
	}
	return -1
}

// colonPairs finds "key: value" and "key:value" anywhere in a line: HTTP
// headers (in curl traces and SDK debug logs), YAML flow mappings
// ({user: a, password: b}), log messages. A key that starts its line (a
// header) takes the rest of the line as its value; elsewhere a value ends
// at a separator.
func colonPairs(line []byte) []span {
	var out []span
	for i := bytes.IndexByte(line, ':'); i >= 0; {
		if sp, ok := colonPair(line, i); ok {
			out = append(out, sp)
		}
		next := bytes.IndexByte(line[i+1:], ':')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// colonPair reads the key before the colon at i and the value after it.
func colonPair(line []byte, i int) (span, bool) {
	ks, ke, ok := keyBefore(line, i)
	if !ok {
		return span{}, false
	}
	vs := i + 1
	for vs < len(line) && isSpaceByte(line[vs]) {
		vs++
	}
	if vs < len(line) && line[vs] == '[' {
		return goSliceValue(line, ks, ke, vs)
	}
	if vs >= len(line) || line[vs] == '{' || bytes.HasPrefix(line[vs:], []byte("//")) {
		return span{}, false // not a scalar, or a URL
	}
	return span{ks, ke, vs, colonValueEnd(line, ks, vs)}, true
}

// goSliceValue reads a value written as Go's fmt writes a slice,
// "[v1 v2]" (an http.Header printed with %v: "map[Cookie:[session=x]]"),
// or a flat YAML flow sequence: the value is what the brackets hold.
func goSliceValue(line []byte, ks, ke, vs int) (span, bool) {
	end := bytes.IndexAny(line[vs+1:], "[]{")
	if end < 0 || line[vs+1+end] != ']' {
		return span{}, false // nested, or not closed on this line
	}
	return span{ks, ke, vs + 1, vs + 1 + end}, true
}

// colonValueEnd returns where the value at vs of the key at ks ends: at
// its closing quote; for a header (a key starting its line, or a quoted
// string: curl -H "Authorization: Bearer x") at the end of the line or of
// the string; elsewhere at a separator.
func colonValueEnd(line []byte, ks, vs int) int {
	switch {
	case line[vs] == '"' || line[vs] == '\'':
		return valueEnd(line, vs)
	case line[ks] == '"' || line[ks] == '\'':
	case ks > 0 && (line[ks-1] == '"' || line[ks-1] == '\''):
		if end := bytes.IndexByte(line[vs:], line[ks-1]); end >= 0 {
			return vs + end
		}
		return len(bytes.TrimRight(line, " \t"))
	case startsLine(line, ks):
		return len(bytes.TrimRight(line, " \t"))
	}
	ve := authSchemeEnd(line, vs)
	for ve < len(line) && line[ve] == '=' { // base64 padding, or a cookie's name=value
		ve = max(valueEnd(line, ve+1), ve+1)
	}
	return ve
}

// authSchemes start the credentials of an HTTP Authorization header
// (RFC 9110 section 11): the credential is the word after the scheme.
var authSchemes = []string{"basic", "bearer", "digest", "negotiate", "ntlm"}

// authSchemeEnd returns the end of the value at vs; a value that starts
// with an authentication scheme ends after the credential that follows it
// ("Authorization: Basic dXNlcjpwYXNz" inside a trace or a log line).
func authSchemeEnd(line []byte, vs int) int {
	ve := valueEnd(line, vs)
	if ve >= len(line) || !isSpaceByte(line[ve]) {
		return ve
	}
	if !isAuthScheme(line[vs:ve]) {
		return ve
	}
	cs := ve
	for cs < len(line) && isSpaceByte(line[cs]) {
		cs++
	}
	if ce := valueEnd(line, cs); ce > cs {
		return ce
	}
	return ve
}

// isAuthScheme reports whether word is one of authSchemes, in any case
// (compared in place: this runs on every line).
func isAuthScheme(word []byte) bool {
	return slices.ContainsFunc(authSchemes, func(s string) bool { return len(s) == len(word) && bytes.EqualFold([]byte(s), word) })
}

// keyBefore finds the key (plain or quoted) that ends just before the
// colon at i, standing alone (not the end of a longer word).
func keyBefore(line []byte, i int) (ks, ke int, ok bool) {
	ke = i
	for ke > 0 && isSpaceByte(line[ke-1]) {
		ke--
	}
	if ke > 0 && (line[ke-1] == '"' || line[ke-1] == '\'') {
		if ke > 1 && line[ke-2] == '\\' {
			return 0, 0, false // an escaped quote: the key is in a string (see views)
		}
		q := bytes.LastIndexByte(line[:ke-1], line[ke-1])
		return q, ke, q >= 0 && ke-q > 2
	}
	ks = ke
	for ks > 0 && isKeyChar(line[ks-1]) {
		ks--
	}
	if ks == ke || ks > 0 && !isKeyBoundary(line[ks-1]) {
		return 0, 0, false
	}
	return ks, ke, true
}

// isKeyBoundary reports whether c may precede a key.
func isKeyBoundary(c byte) bool {
	switch c {
	case ' ', '\t', '{', '[', '(', ',', ';', '<', '>', '"', '\'', '+', '|', '*', '#', '&', '?':
		return true
	}
	return false
}

// startsLine reports whether only indentation and trace or list markers
// ("> ", "< ", "+ ", "- ", "* ") come before ks.
func startsLine(line []byte, ks int) bool {
	for _, c := range line[:ks] {
		switch c {
		case ' ', '\t', '>', '<', '+', '-', '*':
		default:
			return false
		}
	}
	return true
}

// configureSet is the AWS CLI's command that takes a setting's name and
// value as words: `aws configure set aws_secret_access_key VALUE`, seen in
// `set -x` traces of user data.
const configureSet = "configure set "

// configureSetPairs finds the name and value after "configure set".
func configureSetPairs(line []byte) []span {
	var out []span
	from := 0
	for {
		i := bytes.Index(line[from:], []byte(configureSet))
		if i < 0 {
			return out
		}
		ks := from + i + len(configureSet)
		for ks < len(line) && isSpaceByte(line[ks]) {
			ks++
		}
		ke := ks
		for ke < len(line) && !isSpaceByte(line[ke]) {
			ke++
		}
		vs := ke
		for vs < len(line) && isSpaceByte(line[vs]) {
			vs++
		}
		ve := valueEnd(line, vs)
		if q := line[min(vs, len(line)-1)]; q != '"' && q != '\'' {
			for ve < len(line) && !isSpaceByte(line[ve]) {
				ve++
			}
		}
		if ke > ks && ve > vs {
			out = append(out, span{ks, ke, vs, ve})
		}
		from = max(ve, ks)
	}
}

// schemelessUserinfo finds "user:password@host" without a scheme (a proxy
// setting written as host:port with credentials): the userinfo standing
// alone, followed by a host name that is not a digest algorithm
// ("image:tag@sha256:…").
func schemelessUserinfo(line []byte) [][2]int {
	var out [][2]int
	for at := bytes.IndexByte(line, '@'); at >= 0; {
		if s, ok := userinfoBefore(line, at); ok && hostAfter(line, at+1) {
			out = append(out, [2]int{s, at})
		}
		next := bytes.IndexByte(line[at+1:], '@')
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return out
}

// userinfoBefore returns the start of "user:password" ending at at.
func userinfoBefore(line []byte, at int) (int, bool) {
	s := at
	for s > 0 && !isUserinfoBoundary(line[s-1]) {
		s--
	}
	colon := bytes.IndexByte(line[s:at], ':')
	if colon <= 0 || bytes.IndexByte(line[s:s+colon], '/') >= 0 || bytes.Contains(line[s:at], []byte("://")) {
		return 0, false
	}
	return s, !isMask(line[s:at])
}

func isUserinfoBoundary(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\f', '=', '"', '\'', ',', '(', '[', '{', '<', '>', '@', ';':
		return true // the white space ends a URL's userinfo too (\s)
	}
	return false
}

// hostAfter reports whether a host name (not a digest algorithm) starts at i.
func hostAfter(line []byte, i int) bool {
	j := i
	for j < len(line) && (isAlnum(line[j]) || line[j] == '.' || line[j] == '-') {
		j++
	}
	if j == i || j < len(line) && line[j] == '@' || isMask(line[i:j]) {
		return false // a host is never followed by another '@', nor masked
	}
	switch string(bytes.ToLower(line[i:j])) {
	case "sha256", "sha384", "sha512", "sha1", "md5", "blake3":
		return false
	}
	return true
}

// awsSecretKeys finds 40-character secret access keys standing alone on a
// line that holds an access key ID (a key pair: CSV credentials, logs).
func awsSecretKeys(line []byte) [][2]int {
	var out [][2]int
	for i := 0; i+40 <= len(line); i++ {
		if i > 0 && isSecretKeyChar(line[i-1]) {
			continue
		}
		j := i
		for j < len(line) && isSecretKeyChar(line[j]) {
			j++
		}
		if j-i == 40 && (j == len(line) || line[j] != '=') && mixedCase(line[i:j]) {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// minSessionToken is the shortest run taken for a session token on the
// line of its access key ID (STS tokens are hundreds of characters).
const minSessionToken = 100

// longKeyRuns finds base64 runs of minSessionToken characters or more on a
// line that holds an access key ID: the session token of a key triple
// (`aws sts assume-role --output text`), whatever its prefix.
func longKeyRuns(line []byte) [][2]int {
	var out [][2]int
	for i := 0; i < len(line); i++ {
		if i > 0 && isSecretKeyChar(line[i-1]) {
			continue
		}
		j := i
		for j < len(line) && (isSecretKeyChar(line[j]) || line[j] == '=') {
			j++
		}
		if j-i >= minSessionToken && mixedCase(line[i:j]) && !isHex(line[i:j]) {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

func isSecretKeyChar(c byte) bool { return isAlnum(c) || c == '/' || c == '+' }

// mixedCase reports whether b has lower- and upper-case letters, as a
// random key has and a word or a hex digest has not.
func mixedCase(b []byte) bool {
	return bytes.ContainsFunc(b, func(r rune) bool { return r >= 'a' && r <= 'z' }) &&
		bytes.ContainsFunc(b, func(r rune) bool { return r >= 'A' && r <= 'Z' })
}

// sessionTokenPrefixes start STS session tokens (the base64 of their
// binary header).
var sessionTokenPrefixes = []string{"IQoJb3JpZ2lu", "FwoGZXIvYXdz", "FQoGZXIvYXdz", "AQoDYXdz", "AgoJb3JpZ2lu"}

// sessionTokens finds STS session tokens by their prefix.
func sessionTokens(line []byte) [][2]int {
	if !bytes.Contains(line, []byte("YXdz")) && !bytes.Contains(line, []byte("b3JpZ2lu")) { // "aws", "origin"
		return nil
	}
	var out [][2]int
	for _, p := range sessionTokenPrefixes {
		from := 0
		for {
			i := bytes.Index(line[from:], []byte(p))
			if i < 0 {
				break
			}
			s := from + i
			e := s
			for e < len(line) && (isSecretKeyChar(line[e]) || line[e] == '=') {
				e++
			}
			if (s == 0 || !isSecretKeyChar(line[s-1])) && e-s >= 24 {
				out = append(out, [2]int{s, e})
			}
			from = e
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}

// xmlElements finds <Name>value</Name> elements (the AWS Query
// protocol's answers: <SecretAccessKey>, <SessionToken>).
func xmlElements(line []byte) []span {
	var out []span
	for i := bytes.IndexByte(line, '<'); i >= 0 && i+1 < len(line); {
		ke := i + 1
		for ke < len(line) && isKeyChar(line[ke]) {
			ke++
		}
		if ke > i+1 && ke < len(line) && line[ke] == '>' {
			closing := append(append([]byte("</"), line[i+1:ke]...), '>')
			if end := bytes.Index(line[ke+1:], closing); end > 0 {
				out = append(out, span{i + 1, ke, ke + 1, ke + 1 + end})
			}
		}
		next := bytes.IndexByte(line[i+1:], '<')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// isNetrc reports whether a line is a .netrc entry.
func isNetrc(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return (bytes.HasPrefix(t, []byte("machine ")) || bytes.HasPrefix(t, []byte("default "))) && bytes.Contains(t, []byte(" password "))
}

// netrcPairs finds "password VALUE" (and any other secret-named keyword)
// in a .netrc line of space-separated keywords and values.
func netrcPairs(line []byte) []span {
	var out []span
	words := wordSpans(line)
	for i := 0; i+1 < len(words); i++ {
		k, v := words[i], words[i+1]
		out = append(out, span{k[0], k[1], v[0], v[1]})
	}
	return out
}

// wordSpans returns the [start, end) of every space-separated word.
func wordSpans(line []byte) [][2]int {
	var out [][2]int
	for i := 0; i < len(line); {
		for i < len(line) && isSpaceByte(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpaceByte(line[j]) {
			j++
		}
		if j > i {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// isTableRow reports whether a line is a row of a text table drawn with
// '|' (`aws --output table`, Markdown): it starts with one.
func isTableRow(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return len(t) > 0 && t[0] == '|' && bytes.Count(t, []byte{'|'}) >= 3
}

// tableCells pairs each cell of a table row with the cell after it, as a
// key and its value ("||  SecretAccessKey|  wJalr...  ||").
func tableCells(line []byte) []span {
	var cells [][2]int
	for i := 0; i < len(line); {
		j := bytes.IndexByte(line[i:], '|')
		if j < 0 {
			j = len(line) - i
		}
		s, e := i, i+j
		for s < e && isSpaceByte(line[s]) {
			s++
		}
		for e > s && isSpaceByte(line[e-1]) {
			e--
		}
		if e > s {
			cells = append(cells, [2]int{s, e})
		}
		i += j + 1
	}
	var out []span
	for k := 0; k+1 < len(cells); k++ {
		out = append(out, span{cells[k][0], cells[k][1], cells[k+1][0], cells[k+1][1]})
	}
	return out
}

// userPasswordFlags are the flags of command lines that take
// "user:password" (curl, ctr, crictl, skopeo), seen in `set -x` traces.
var userPasswordFlagNames = []string{"-u", "--user", "-U", "--proxy-user", "--creds", "--src-creds", "--dest-creds"}

// hasUserPasswordFlag reports whether a line may hold one of
// userPasswordFlagNames with a "user:password" value (the cheap test run
// on every line).
func hasUserPasswordFlag(line []byte) bool {
	if bytes.IndexByte(line, ':') < 0 {
		return false
	}
	// One pass over the dashes that start a word (this runs on every line).
	for i := bytes.IndexByte(line, '-'); i >= 0; {
		if i == 0 || isSpaceByte(line[i-1]) {
			for _, f := range userPasswordFlagNames {
				if bytes.HasPrefix(line[i:], []byte(f)) {
					return true
				}
			}
		}
		next := bytes.IndexByte(line[i+1:], '-')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// userPasswordFlags finds "-u user:password" and "--user=user:password":
// the value is the password, after the first colon.
func userPasswordFlags(line []byte) []span {
	var out []span
	for _, w := range wordSpans(line) {
		flag, _, attached := bytes.Cut(line[w[0]:w[1]], []byte{'='})
		if !slices.Contains(userPasswordFlagNames, string(flag)) {
			continue
		}
		vs := w[0] + len(flag) + 1
		if !attached {
			vs = w[1]
			for vs < len(line) && isSpaceByte(line[vs]) {
				vs++
			}
		}
		if ps, pe, ok := passwordOf(line, vs); ok && !isUIDGID(line[vs:pe]) {
			out = append(out, span{w[0], w[0] + len(flag), ps, pe})
		}
	}
	return out
}

// passwordOf returns the password of the "user:password" word (quoted or
// not) at vs.
func passwordOf(line []byte, vs int) (ps, pe int, ok bool) {
	if vs >= len(line) {
		return 0, 0, false
	}
	ve, quoted := valueEnd(line, vs), line[vs] == '"' || line[vs] == '\''
	if quoted {
		ve-- // the closing quote
	} else {
		for ve < len(line) && !isSpaceByte(line[ve]) {
			ve++
		}
	}
	colon := bytes.IndexByte(line[vs:max(ve, vs)], ':')
	if colon < 0 {
		return 0, 0, false
	}
	ps = vs + colon + 1
	return ps, ve, ve > ps
}

// isUIDGID reports whether a "-u" value is a user and group ID ("docker
// run -u 1000:1000"), not credentials.
func isUIDGID(v []byte) bool {
	uid, gid, _ := bytes.Cut(v, []byte{':'})
	return isDigits(uid) && isDigits(gid)
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
