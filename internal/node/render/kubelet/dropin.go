package kubelet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// renderDropIn renders spec.kubelet.config as a kubelet drop-in, with kind
// and apiVersion filled in when absent (kubelet ignores a drop-in without
// them). The kubelet layers it over the base file, so the user's values
// (e.g. maxPods, clusterDNS) win. Values are re-encoded so that keys are
// sorted at every level; numbers keep their exact text.
func renderDropIn(p plan) (render.File, error) {
	user := p.cfg.Spec.Kubelet.Config
	doc := make(map[string]any, len(user)+2)
	doc["kind"] = "KubeletConfiguration"
	doc["apiVersion"] = "kubelet.config.k8s.io/v1beta1"
	for key, raw := range user {
		v, err := decodeExact(raw)
		if err != nil {
			return render.File{}, fmt.Errorf("%w: kubelet.config.%s: %w", ErrInvalidKubeletConfig, key, err)
		}
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
