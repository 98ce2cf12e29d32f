package gentypes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	upresource "k8s.io/apimachinery/pkg/api/resource"
	upmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	metav1 "github.com/nodeboot/nodeboot/internal/k8sapi/meta/v1"
	"github.com/nodeboot/nodeboot/internal/k8sapi/resource"
)

// The helpers below are for the lean packages' tests.

// Pairs maps the upstream types with hand-written lean counterparts to
// those counterparts.
var Pairs = map[reflect.Type]reflect.Type{
	reflect.TypeFor[upmetav1.TypeMeta]():        reflect.TypeFor[metav1.TypeMeta](),
	reflect.TypeFor[upmetav1.Duration]():        reflect.TypeFor[metav1.Duration](),
	reflect.TypeFor[upmetav1.Time]():            reflect.TypeFor[metav1.Time](),
	reflect.TypeFor[upresource.Quantity]():      reflect.TypeFor[resource.Quantity](),
	reflect.TypeFor[upresource.QuantityValue](): reflect.TypeFor[resource.QuantityValue](),
}

// SameShape walks a lean type and its upstream type together: the same
// kinds, the same fields in the same order with the same names, JSON tags
// and embedding, down to the types in pairs (upstream → lean), which must
// meet each other.
func SameShape(lean, up reflect.Type, pairs map[reflect.Type]reflect.Type) error {
	return sameShape(lean, up, pairs, map[[2]reflect.Type]bool{}, up.String())
}

func sameShape(lean, up reflect.Type, pairs map[reflect.Type]reflect.Type, seen map[[2]reflect.Type]bool, path string) error {
	if want, ok := pairs[up]; ok {
		if lean != want {
			return fmt.Errorf("%s: lean type %s, want %s", path, lean, want)
		}
		return nil
	}
	if seen[[2]reflect.Type{lean, up}] {
		return nil
	}
	seen[[2]reflect.Type{lean, up}] = true
	if lean.Kind() != up.Kind() || lean.Name() != up.Name() {
		return fmt.Errorf("%s: lean %s (%s), upstream %s (%s)", path, lean, lean.Kind(), up, up.Kind())
	}
	switch up.Kind() {
	case reflect.Struct:
		if lean.NumField() != up.NumField() {
			return fmt.Errorf("%s: lean has %d fields, upstream %d", path, lean.NumField(), up.NumField())
		}
		for i := range up.NumField() {
			lf, uf := lean.Field(i), up.Field(i)
			if lf.Name != uf.Name || lf.Anonymous != uf.Anonymous || lf.Tag.Get("json") != uf.Tag.Get("json") {
				return fmt.Errorf("%s: field %d is %s %q, upstream %s %q", path, i, lf.Name, lf.Tag.Get("json"), uf.Name, uf.Tag.Get("json"))
			}
			if err := sameShape(lf.Type, uf.Type, pairs, seen, path+"."+uf.Name); err != nil {
				return err
			}
		}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return sameShape(lean.Elem(), up.Elem(), pairs, seen, path+"[]")
	case reflect.Map:
		if err := sameShape(lean.Key(), up.Key(), pairs, seen, path+"{key}"); err != nil {
			return err
		}
		return sameShape(lean.Elem(), up.Elem(), pairs, seen, path+"{}")
	}
	return nil
}

// quantities are canonical quantity texts (the API machinery writes them
// unchanged), so that lean and upstream encode them alike.
var quantities = []string{"0", "1", "100Mi", "1Gi", "500m", "2", "-3", "1500m", "129e6", "10Ki", "3Ti"}

// Filler fills upstream and lean values with random data, drawing the types
// with custom encodings from values both sides encode alike.
func Filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 2).Funcs(
		func(q *upresource.Quantity, c randfill.Continue) {
			*q = upresource.MustParse(quantities[c.Intn(len(quantities))])
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = resource.MustParse(quantities[c.Intn(len(quantities))])
		},
		func(d *upmetav1.Duration, c randfill.Continue) { d.Duration = randomDuration(c) },
		func(d *metav1.Duration, c randfill.Continue) { d.Duration = randomDuration(c) },
		func(t *upmetav1.Time, c randfill.Continue) { t.Time = randomTime(c) },
		func(t *metav1.Time, c randfill.Continue) { t.Time = randomTime(c) },
	)
}

func randomDuration(c randfill.Continue) time.Duration {
	return time.Duration(c.Int63n(int64(48*time.Hour))) - 24*time.Hour
}

// randomTime is a whole second in UTC (the encoding keeps seconds). It is
// never zero: a pointer to the zero time encodes as null, which decodes as a
// nil pointer, on both sides alike (see meta/v1's tests).
func randomTime(c randfill.Continue) time.Time {
	return time.Unix(1+c.Int63n(4e9), 0).UTC()
}

// RoundTrip encodes from, decodes the JSON strictly into to and encodes
// that: both encodings must be the same bytes.
func RoundTrip(from, to any) error {
	first, err := json.Marshal(from)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(first))
	dec.DisallowUnknownFields()
	if err := dec.Decode(to); err != nil {
		return fmt.Errorf("%T rejects %T's encoding: %w\n%s", to, from, err, first)
	}
	second, err := json.Marshal(to)
	if err != nil {
		return err
	}
	if !bytes.Equal(first, second) {
		return fmt.Errorf("%T and %T encode differently:\n%s\n%s", from, to, first, second)
	}
	return nil
}
