package generate

import (
	"encoding/json"
	"strconv"

	nbv1alpha1 "github.com/nodeboot/nodeboot/api/nodeboot/v1alpha1"
	eksv1alpha1 "github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// karpenterNodeConfigHeader heads Karpenter's NodeConfig part.
const karpenterNodeConfigHeader = "# Karpenter Generated NodeConfig\n"

// al2023Part writes the producer's NodeConfig: the cluster, max pods, the
// labels as --node-labels, and the taints as --register-with-taints (EKS,
// eksctl) or kubelet.config.registerWithTaints (Karpenter); eksctl adds
// clusterDNS, eksctl and Karpenter their kubelet config fields.
func al2023Part(in *injection, own hub.Kubelet) (Part, error) {
	spec := hub.Spec{Cluster: in.cluster}
	config := map[string]json.RawMessage{}
	if in.maxPods > 0 {
		config["maxPods"] = json.RawMessage(strconv.Itoa(int(in.maxPods)))
	}
	if in.producer == ProducerEksctl && in.dns != "" {
		config["clusterDNS"] = mustJSON([]string{in.dns})
	}
	labels := "--node-labels=" + labelsText(in.labels)
	var flags []string
	switch in.producer {
	case ProducerKarpenter:
		config["registerWithTaints"] = mustJSON(taintObjects(in))
		flags = []string{`--node-labels="` + labelsText(in.labels) + `"`}
	default:
		flags = []string{labels}
		if len(in.taints) > 0 {
			flags = append(flags, "--register-with-taints="+taintsText(in.taints, in.producer))
		}
	}
	merged, err := merge.JSONObjects(own.Config, config)
	if err != nil {
		return Part{}, err
	}
	spec.Kubelet = hub.Kubelet{Config: merged, Flags: flags}
	apiVersion := eksv1alpha1.APIVersion
	if spec.Cluster.APIServerEndpoint == "" || len(spec.Cluster.CertificateAuthority) == 0 || spec.Cluster.CIDR == "" {
		apiVersion = nbv1alpha1.APIVersion
		in.notes.add("the NodeConfig is %s because the endpoint, CA or service CIDR is left to discovery; nodeadm cannot read it, nodeboot can", apiVersion)
	}
	body, err := convert.NodeConfigYAMLAs(apiVersion, spec)
	if err != nil {
		return Part{}, err
	}
	if in.producer == ProducerKarpenter {
		body = append([]byte(karpenterNodeConfigHeader), body...)
	}
	return generatedPart(in.producer, userdata.FormatNodeConfig, convert.ContentTypeNodeConfig, body), nil
}

// taintObject is a taint as KubeletConfiguration.registerWithTaints holds it.
type taintObject struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

func taintObjects(in *injection) []taintObject {
	out := make([]taintObject, len(in.taints))
	for i, t := range in.taints {
		out[i] = taintObject{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	return out
}

// mustJSON encodes values that cannot fail to encode.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
