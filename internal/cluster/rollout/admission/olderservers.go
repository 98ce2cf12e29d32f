package admission

import (
	"regexp"
	"strings"
)

// typeValues maps the schema types older API servers print as a failed
// rule's value to what Check prints there instead, as regular expressions.
var typeValues = map[string]string{
	`"object"`:  ``,
	`"array"`:   ``,
	`"string"`:  jsonString + `: `,
	`"integer"`: jsonNumber + `: `,
	`"number"`:  jsonNumber + `: `,
	`"boolean"`: `(?:true|false): `,
	`""`:        `(?:` + jsonString + `|` + jsonNumber + `): `, // int-or-string
}

const (
	jsonString = `"(?:[^"\\]|\\.)*"`
	jsonNumber = `-?[0-9][0-9.eE+-]*`
)

// oldRuleValue finds where an older API server printed a schema type as a
// failed rule's value.
var oldRuleValue = regexp.MustCompile(`Invalid value: ("object"|"array"|"string"|"integer"|"number"|"boolean"|""): `)

// AnswerPattern returns a regular expression (unanchored) that matches
// answer, an API server's refusal of a rollout, and the same refusal as
// Check words it. From v1.35 on, API servers word a failed
// x-kubernetes-validations rule with the value it refused
// (spec.timeouts.drain: Invalid value: "200h0m0s": …), or none for an
// object or a list; older ones, which EKS still runs, print the field's
// schema type in its place (Invalid value: "string": …; "object"; "" for an
// int-or-string: kubernetes/kubernetes#132798 and #133832).
// Check words it as the apiextensions-apiserver it is built with (go.mod).
// Everything else (the fields, the rules' messages, the other errors and
// their order) must be the same. The e2e suite, which runs an older API
// server on purpose, compares the two answers with it.
func AnswerPattern(answer string) string {
	var b strings.Builder
	last := 0
	for _, m := range oldRuleValue.FindAllStringSubmatchIndex(answer, -1) {
		b.WriteString(regexp.QuoteMeta(answer[last:m[0]]))
		old := answer[m[0]:m[1]]
		value := typeValues[answer[m[2]:m[3]]]
		b.WriteString(`(?:` + regexp.QuoteMeta(old) + `|Invalid value: ` + value + `)`)
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(answer[last:]))
	return b.String()
}
