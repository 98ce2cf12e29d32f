package admission

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// answersV134 are a v1.34.4 API server's answers to BadRollouts, by case
// name (the answers of this package's Check built with apiextensions-apiserver
// v0.34.4, which the e2e suite had found equal to that server's).
func answersV134(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("testdata/answers-v1.34.json")
	if err != nil {
		t.Fatal(err)
	}
	var answers map[string]string
	if err := json.Unmarshal(data, &answers); err != nil {
		t.Fatal(err)
	}
	return answers
}

func fullMatch(t *testing.T, answer, local string) bool {
	t.Helper()
	return regexp.MustCompile(`^(?:` + AnswerPattern(answer) + `)$`).MatchString(local)
}

// TestAnswerPatternMatchesOlderServers: every refusal of a v1.34 API server
// matches Check's answer to the same rollout, and Check's answer matches
// itself (what a server of Check's version answers).
func TestAnswerPatternMatchesOlderServers(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	answers := answersV134(t)
	for _, tc := range BadRollouts() {
		t.Run(tc.Name, func(t *testing.T) {
			local := c.Check(t.Context(), tc.Rollout).Error()
			old, ok := answers[tc.Name]
			if !ok {
				t.Fatalf("no v1.34 answer in testdata")
			}
			if !fullMatch(t, old, local) {
				t.Errorf("v1.34 answer %q\ndoes not match Check's %q", old, local)
			}
			if !fullMatch(t, local, local) {
				t.Errorf("Check's answer %q does not match itself", local)
			}
		})
	}
}

// TestAnswerPatternRefusesOtherAnswers: only a failed rule's value may
// differ, and only as the API server versions differ.
func TestAnswerPatternRefusesOtherAnswers(t *testing.T) {
	const prefix = `NodeGroupRollout.nodeboot.io "r" is invalid: `
	for _, tc := range []struct{ name, answer, local string }{
		{"another rule message", `spec: Invalid value: "object": set at most one of launchTemplateVersion and imageID`,
			`spec: Invalid value: set at most one of launchTemplateVersion or imageID`},
		{"another field", `spec.timeouts.drain: Invalid value: "string": must be a duration`,
			`spec.timeouts.postDrainWait: Invalid value: "-1s": must be a duration`},
		{"a value for an object", `spec: Invalid value: "object": set at most one`, `spec: Invalid value: {}: set at most one`},
		{"a number for a string", `spec.timeouts.drain: Invalid value: "string": must be a duration`,
			`spec.timeouts.drain: Invalid value: 5: must be a duration`},
		{"no value for a string", `spec.timeouts.drain: Invalid value: "string": must be a duration`,
			`spec.timeouts.drain: Invalid value: must be a duration`},
		{"another value outside a rule", `spec.imageID: Invalid value: "ami-1": spec.imageID in body should match`,
			`spec.imageID: Invalid value: "ami-2": spec.imageID in body should match`},
		{"a missing error", `[spec: Invalid value: "object": a, spec.imageID: Invalid value: "x": b]`, `spec: Invalid value: a`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if fullMatch(t, prefix+tc.answer, prefix+tc.local) {
				t.Errorf("%q matches %q", tc.answer, tc.local)
			}
		})
	}
}
