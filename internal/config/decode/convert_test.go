package decode

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"sigs.k8s.io/randfill"

	nbv1 "github.com/nodeboot/nodeboot/api/nodeboot/v1alpha1"
	eksv1 "github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// filler fills every field, with small valid JSON for raw messages.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 3).Funcs(
		func(m *json.RawMessage, c randfill.Continue) {
			*m = json.RawMessage(strconv.Itoa(int(c.Uint64() % 1000)))
		},
	)
}

// asJSONMap renders v as JSON and reads it back as generic maps.
func asJSONMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFromNodebootKeepsEveryField fills every field of the nodeboot.io
// spec and checks that the hub holds the same JSON: a field added to one
// side and forgotten in the conversion fails here.
func TestFromNodebootKeepsEveryField(t *testing.T) {
	for seed := range int64(20) {
		var s nbv1.NodeConfigSpec
		filler(seed).Fill(&s)
		if got, want := asJSONMap(t, fromNodeboot(s)), asJSONMap(t, s); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d:\n got %v\nwant %v", seed, got, want)
		}
	}
}

// TestFromEKSKeepsEveryField does the same for node.eks.aws, whose specs
// must leave the nodeboot extensions empty.
func TestFromEKSKeepsEveryField(t *testing.T) {
	for seed := range int64(20) {
		var s eksv1.NodeConfigSpec
		filler(seed).Fill(&s)
		h := fromEKS(s)
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var back eksv1.NodeConfigSpec
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, s) {
			t.Fatalf("seed %d: round trip through the hub changed the spec:\n got %+v\nwant %+v", seed, back, s)
		}
		if !reflect.DeepEqual(h.Identity, hub.Identity{}) || !reflect.DeepEqual(h.MaxPods, hub.MaxPodsPolicy{}) || h.Cluster.IPFamily != "" {
			t.Fatalf("seed %d: extensions set from a node.eks.aws spec: %+v %+v %q", seed, h.Identity, h.MaxPods, h.Cluster.IPFamily)
		}
	}
}

// TestExtensionPaths pins what nodeboot.io adds to node.eks.aws; every
// other field must keep nodeadm's name.
func TestExtensionPaths(t *testing.T) {
	var got []string
	for p := range extensionPaths() {
		got = append(got, p)
	}
	sort.Strings(got)
	want := []string{"spec.cluster.ipFamily", "spec.identity", "spec.maxPods"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("extension paths = %q, want %q", got, want)
	}
	missing := map[string]bool{}
	diffFields(reflect.TypeFor[eksv1.NodeConfig](), reflect.TypeFor[nbv1.NodeConfig](), "", missing)
	if len(missing) != 0 {
		t.Errorf("node.eks.aws fields missing from nodeboot.io: %v", missing)
	}
}
