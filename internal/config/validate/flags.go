package validate

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Kubelet flags reach the kubelet the way nodeadm passes them: joined with
// spaces into NODEADM_KUBELET_ARGS in an environment file, which systemd
// splits into words, removing quotes, when it starts the kubelet. So an
// item of kubelet.flags is a flag only if it is one word after that split,
// and "--name value" still works because the kubelet's flag parser takes
// the next word as the value.

// Errors returned (wrapped) by SystemdWords.
var (
	// ErrUnterminatedQuote means a ' or " is never closed.
	ErrUnterminatedQuote = errors.New("unterminated quote")
	// ErrDanglingBackslash means the text ends with a lone backslash.
	ErrDanglingBackslash = errors.New("dangling backslash")
)

// SystemdWords splits s the way systemd splits an unquoted $VARIABLE on a
// command line: on blanks, removing quotes. Single quotes keep everything
// literally; inside double quotes a backslash escapes " \ $ and `; outside
// quotes it escapes any character. An empty quoted string is a word of
// its own. Nothing is expanded. Errors wrap ErrUnterminatedQuote or
// ErrDanglingBackslash.
func SystemdWords(s string) ([]string, error) {
	var (
		out     []string
		cur     strings.Builder
		started bool
	)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r':
			if started {
				out = append(out, cur.String())
				cur.Reset()
				started = false
			}
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: the ' at byte %d is never closed", ErrUnterminatedQuote, i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			started = true
			i += end + 1
		case '"':
			next, err := readDoubleQuoted(s, i, &cur)
			if err != nil {
				return nil, err
			}
			started = true
			i = next
		case '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("%w: the value ends with a backslash", ErrDanglingBackslash)
			}
			i++
			cur.WriteByte(s[i])
			started = true
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if started {
		out = append(out, cur.String())
	}
	return out, nil
}

// readDoubleQuoted copies the content of the "…" starting at s[open] and
// returns the index of the closing quote.
func readDoubleQuoted(s string, open int, cur *strings.Builder) (int, error) {
	for i := open + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
			i++
			cur.WriteByte(s[i])
		default:
			cur.WriteByte(c)
		}
	}
	return 0, fmt.Errorf("%w: the \" at byte %d is never closed", ErrUnterminatedQuote, open)
}

// NormalizeFlag returns a kubelet.flags item as the kubelet receives it
// when that is one --name=value flag: quotes removed the way systemd
// removes them (--node-labels="a=b" is --node-labels=a=b), and a flag and
// its value separated by blanks joined (--node-labels "a=b" is
// --node-labels=a=b, as the kubelet's flag parser reads the two words). An
// item that would make anything else (a stray word, a second flag, a
// boolean flag followed by a word) is returned unchanged, for FlagProblems
// to refuse.
func NormalizeFlag(item string) string {
	words, err := SystemdWords(item)
	if err != nil {
		return item
	}
	switch {
	case len(words) == 1:
		return words[0]
	case len(words) == 2 && takesSeparateValue(words[0]) && !strings.HasPrefix(words[1], "-"):
		return words[0] + "=" + words[1]
	}
	return item
}

// takesSeparateValue reports a word "--name" after which the kubelet's
// flag parser takes the next word as the value.
func takesSeparateValue(word string) bool {
	name, ok := strings.CutPrefix(word, "--")
	return ok && name != "" && !strings.Contains(name, "=") && !IsKubeletBoolFlag(name)
}

// FlagProblems says what is wrong with one kubelet.flags item (after
// NormalizeFlag), in the words the kubelet would refuse it with, or nil.
func FlagProblems(flag string) []string {
	name, value, hasValue := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
	switch {
	case !strings.HasPrefix(flag, "--"):
		return []string{"must start with --, e.g. --node-labels=team=a"}
	case name == "":
		return []string{"has no flag name after --"}
	}
	if why := notOneWord(flag); why != "" {
		return []string{why}
	}
	if !hasValue {
		return nil
	}
	switch name {
	case "node-labels":
		return NodeLabelsProblems(value)
	case "register-with-taints":
		return TaintsProblems(value)
	case "hostname-override":
		if why := HostnameOverrideProblem(value); why != "" {
			return []string{why}
		}
	}
	return nil
}

// notOneWord says why a flag would not reach the kubelet as one word
// exactly as written, or "".
func notOneWord(flag string) string {
	if _, err := SystemdWords(flag); errors.Is(err, ErrUnterminatedQuote) {
		return "has a quote that is never closed"
	}
	for _, r := range flag {
		switch {
		case unicode.IsSpace(r):
			return fmt.Sprintf("contains a blank (%U): systemd splits the kubelet's command line at blanks, so give each flag as its own list item, --name=value with no blank in the value", r)
		case unicode.IsControl(r):
			return fmt.Sprintf("contains the control character %U", r)
		case r == '"' || r == '\'' || r == '\\':
			return fmt.Sprintf("contains %q, which systemd takes as quoting on the kubelet's command line: flag values cannot hold it", r)
		}
	}
	return ""
}

// IsKubeletBoolFlag reports a kubelet flag that takes no separate value:
// a word after it is a stray argument, which the kubelet refuses.
func IsKubeletBoolFlag(name string) bool {
	switch name {
	case "add-dir-header", "alsologtostderr", "anonymous-auth", "authentication-token-webhook",
		"cgroups-per-qos", "cpu-cfs-quota", "enable-controller-attach-detach",
		"enable-debugging-handlers", "enable-load-reader", "enable-server",
		"exit-on-lock-contention", "fail-cgroupv1", "fail-swap-on", "help",
		"kernel-memcg-notification", "keep-terminated-pod-volumes",
		"local-storage-capacity-isolation", "log-json-split-stream", "log-text-split-stream",
		"logtostderr", "make-iptables-util-chains", "one-output", "protect-kernel-defaults",
		"register-node", "register-schedulable", "rotate-certificates",
		"rotate-server-certificates", "seccomp-default", "serialize-image-pulls",
		"skip-headers", "skip-log-headers":
		return true
	}
	return false
}
