package diag

// Relax returns l with every StrictOnly error turned into a warning that
// says why the node boots anyway: what nodeadm accepts must not keep a
// node from joining. The problems of l are not modified.
func Relax(l List) List {
	out := make(List, len(l))
	for i, p := range l {
		if p.StrictOnly && p.Severity == SeverityError {
			p.Severity = SeverityWarning
			p.Message += " (nodeadm ignores it, and so does this boot; config check and init --strict refuse it)"
		}
		out[i] = p
	}
	return out
}
