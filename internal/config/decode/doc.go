// Package decode reads NodeConfig user data (YAML or JSON, one or more
// documents separated by ---) strictly and reports every problem at once,
// each with a field path and the absolute line:column in the user data.
//
// Both node.eks.aws/v1alpha1 (nodeadm) and nodeboot.io/v1alpha1 documents
// are accepted. The YAML node tree is walked against the Go types by their
// JSON tags, so the rules are those of encoding/json plus strictness:
// unknown fields (with a "did you mean"), duplicate keys, wrong node kinds,
// scalars that do not fit the field, null where a value is needed, YAML
// merge keys and unknown tags are all errors. kubelet.config is walked
// against KubeletConfiguration (kubelet.config.k8s.io/v1beta1), where null
// is allowed (it unsets a value when drop-ins are merged), durations must
// be Go duration strings ("2m30s"), kubeReserved and systemReserved values
// quantities, and eviction thresholds known signals with a quantity or a
// percentage; containerd.baseRuntimeSpec and metadata accept any JSON value.
// YAML anchors and aliases work; a document may expand to at most 50,000
// nodes, which defuses alias bombs: past that, the one error says so and
// the values left undecoded are not checked. At most diag.MaxProblems
// problems are reported per user-data document.
// Value checks (URL, CIDR, CA bundle, enums, names, max pods expression)
// come from package validate; containerd.config is parsed as TOML here so
// its errors can point at the right user-data line.
//
// # Field paths
//
// Paths are written as k8s.io/apimachinery's field.Path renders them and
// are the keys of Decoded.Positions:
//
//   - struct fields are joined with dots: spec.cluster.cidr;
//   - list items take their index: spec.kubelet.flags[2];
//   - keys of maps take brackets, unquoted: spec.instance.environment[default],
//     spec.instance.environment[default][HTTP_PROXY], spec.featureGates[FastImagePull];
//   - kubelet.config is a map in the API, so its top-level keys take
//     brackets and the fields below them, being KubeletConfiguration struct
//     fields, take dots: spec.kubelet.config[maxPods],
//     spec.kubelet.config[authentication].x509.clientCAFile,
//     spec.kubelet.config[evictionHard][memory.available];
//   - free-form JSON (containerd.baseRuntimeSpec, metadata) uses brackets
//     for object keys and indices: spec.containerd.baseRuntimeSpec[process][rlimits][0].
//
// A position is where the field's value starts (for unknown and duplicate
// keys, where the key starts). Lines are absolute: the document's
// Source.Line plus the line within the document, minus one.
package decode
