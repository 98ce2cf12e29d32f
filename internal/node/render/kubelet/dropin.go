package kubelet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// renderDropIn renders the drop-in part of spec.kubelet.config (see
// userConfig), with kind and apiVersion filled in when absent (the kubelet
// ignores a drop-in without them). The kubelet layers it over the base
// file, so the user's values (e.g. maxPods, clusterDNS) win. Keys are
// sorted at every level; numbers keep their exact text.
func renderDropIn(p plan) (render.File, error) {
	doc := make(map[string]any, len(p.user.dropIn)+2)
	doc["kind"] = "KubeletConfiguration"
	doc["apiVersion"] = "kubelet.config.k8s.io/v1beta1"
	for key, v := range p.user.dropIn {
		doc[key] = v
	}
	data, err := marshalJSON(doc)
	if err != nil {
		return render.File{}, err
	}
	return render.File{Path: DropInPath, Mode: publicMode, Data: data}, nil
}

// decodeExact decodes one JSON value, keeping numbers as json.Number.
func decodeExact(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}
