package decode

import (
	"reflect"
	"sort"
	"strings"
	"sync"
)

// fieldInfo is one JSON-visible struct field.
type fieldInfo struct {
	index []int
	typ   reflect.Type
}

// structInfo lists a struct type's JSON fields by name.
type structInfo struct {
	byName map[string]fieldInfo
	names  []string // sorted, for suggestions
}

// structCache holds *structInfo by reflect.Type.
var structCache sync.Map

// fieldsOf returns t's JSON fields the way encoding/json sees them: the
// json tag name (or the Go name), fields of embedded structs promoted,
// "-" and unexported fields skipped.
func fieldsOf(t reflect.Type) *structInfo {
	if si, ok := structCache.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string]fieldInfo{}}
	collectFields(t, nil, si)
	for name := range si.byName {
		si.names = append(si.names, name)
	}
	sort.Strings(si.names)
	actual, _ := structCache.LoadOrStore(t, si)
	return actual.(*structInfo)
}

// collectFields adds t's fields (index prefixed by prefix) to si; the
// shallower field wins a name clash, as in encoding/json.
func collectFields(t reflect.Type, prefix []int, si *structInfo) {
	var embedded []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		name, skip := jsonName(f)
		if skip {
			continue
		}
		if f.Anonymous && name == "" && isStruct(f.Type) {
			embedded = append(embedded, f)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := si.byName[name]; !taken {
			si.byName[name] = fieldInfo{index: append(append([]int{}, prefix...), i), typ: f.Type}
		}
	}
	for _, f := range embedded {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		collectFields(ft, append(append([]int{}, prefix...), f.Index[0]), si)
	}
}

// jsonName returns the name in f's json tag and whether f is skipped.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ := strings.Cut(tag, ",")
	return name, false
}

// isStruct reports whether t is a struct or a pointer to one.
func isStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// fieldByIndex returns v's field at index, allocating nil embedded pointers.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
