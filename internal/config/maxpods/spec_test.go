package maxpods

import (
	"encoding/json"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// TestSpecRule pins what a merged spec fixes: the last --max-pods flag over
// kubelet.config.maxPods (flags override the config file, as the kubelet
// applies them), non-positive or malformed values fixing nothing, and the
// kubelet's default when bootstrap.sh's --use-max-pods false writes none.
func TestSpecRule(t *testing.T) {
	no := false
	cases := []struct {
		name      string
		spec      hub.Spec
		user      int32
		effective int32
	}{
		{name: "nothing set: the computed value", effective: 29},
		{name: "config file", spec: spec(nil, `40`), user: 40, effective: 40},
		{name: "flag over config file, last flag wins", spec: spec([]string{"--max-pods=12", "--max-pods", "13"}, `40`), user: 13, effective: 13},
		{name: "malformed flag falls back to the config", spec: spec([]string{"--max-pods=many"}, `40`), user: 40, effective: 40},
		{name: "zero fixes nothing", spec: spec(nil, `0`), effective: 29},
		{name: "use-max-pods false: the kubelet's default", spec: hub.Spec{MaxPods: hub.MaxPodsPolicy{Set: &no}}, effective: DefaultMaxPods},
		{name: "use-max-pods false with a user value", spec: func() hub.Spec { s := spec([]string{"--max-pods=20"}, ""); s.MaxPods.Set = &no; return s }(), user: 20, effective: 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := SpecInput(tc.spec)
			if in.UserMaxPods != tc.user {
				t.Errorf("UserMaxPods = %d, want %d", in.UserMaxPods, tc.user)
			}
			res := Result{MaxPods: 29}
			if tc.user > 0 {
				res.MaxPods = tc.user
			}
			if got := Effective(tc.spec, res); got != tc.effective {
				t.Errorf("Effective = %d, want %d", got, tc.effective)
			}
		})
	}
}

func spec(flags []string, maxPods string) hub.Spec {
	s := hub.Spec{Kubelet: hub.Kubelet{Flags: flags}}
	if maxPods != "" {
		s.Kubelet.Config = map[string]json.RawMessage{"maxPods": json.RawMessage(maxPods)}
	}
	return s
}
