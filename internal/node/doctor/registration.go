package doctor

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// RegistrationEvidence is the Node object, read with the kubelet's
// credential, and what the kubelet is configured to register.
type RegistrationEvidence struct {
	NodeName   string
	ProviderID string
	Node       *kubeapi.Node
	Err        error
}

// registrationVerdict checks that the Node exists as this kubelet's and is
// Ready.
func registrationVerdict(ev RegistrationEvidence, id IdentityEvidence, now time.Time) Result {
	r := Result{ID: CheckRegistered}
	if ev.Err != nil {
		return registrationError(r, ev, id)
	}
	n := ev.Node
	r.Evidence = append(r.Evidence, fmt.Sprintf("Node %s created %s, providerID %q", n.Metadata.Name, n.Metadata.CreationTimestamp.UTC().Format(time.RFC3339), n.Spec.ProviderID))
	for _, a := range n.Status.Addresses {
		r.Evidence = append(r.Evidence, fmt.Sprintf("address %s %s", a.Type, a.Address))
	}
	if ev.ProviderID != "" && n.Spec.ProviderID != "" && n.Spec.ProviderID != ev.ProviderID {
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("Node %s belongs to another instance: its providerID is %s, this kubelet's is %s", n.Metadata.Name, n.Spec.ProviderID, ev.ProviderID)
		r.Action = "A stale Node of a terminated instance holds this name: delete it (kubectl delete node) and restart the kubelet."
		return r
	}
	ready, ok := n.Ready()
	switch {
	case !ok:
		r.Verdict, r.Summary = Warn, fmt.Sprintf("Node %s is registered but has no Ready condition yet", n.Metadata.Name)
		r.Action = "Wait for the kubelet's first status update; if none comes, read its errors (runtime check)."
	case ready.Status == "True":
		r.Verdict, r.Summary = OK, fmt.Sprintf("Node %s registered and Ready (since %s)", n.Metadata.Name, age(now, ready.LastTransitionTime))
	default:
		r.Verdict = Warn
		r.Summary = fmt.Sprintf("Node %s registered but Ready=%s: %s: %s", n.Metadata.Name, ready.Status, ready.Reason, ready.Message)
		r.Action = "Act on the Ready condition's message: most often the pod network (CNI) is not installed yet, or the kubelet stopped posting status."
	}
	return r
}

// registrationError judges a failed read of the Node.
func registrationError(r Result, ev RegistrationEvidence, id IdentityEvidence) Result {
	r.Verdict = Fail
	switch {
	case kubeapi.IsStatus(ev.Err, http.StatusNotFound):
		r.Summary = fmt.Sprintf("Node %s is not registered", ev.NodeName)
		r.Action = "The kubelet has not registered: read its last errors (runtime check); with the identity check passing, a kubelet that is not running or cannot reach the API server is left."
	case kubeapi.IsStatus(ev.Err, http.StatusForbidden):
		r.Summary = fmt.Sprintf("authorization: the API server refuses %s (groups %s) to get Node %s (403 Forbidden): %v",
			orUnknown(id.User.Username), strings.Join(id.User.Groups, ", "), ev.NodeName, ev.Err)
		r.Action = "The identity check proved who the kubelet is; the authorizer refuses it: the API server needs --authorization-mode with Node (EKS has it) and the default RBAC (system:node and system:nodes bindings must not be removed); read the API server's audit log for the denial."
	default:
		r.Summary = fmt.Sprintf("cannot read Node %s: %v", ev.NodeName, ev.Err)
		r.Action = "Read the error; the API server answered the identity check a moment ago."
	}
	return r
}

// age says how long ago t was.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return now.Sub(t).Round(time.Second).String() + " ago"
}
