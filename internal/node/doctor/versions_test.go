package doctor

import (
	"errors"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

func TestVersionsVerdict(t *testing.T) {
	server := func(v string) *kubeapi.VersionInfo { return &kubeapi.VersionInfo{GitVersion: v} }
	checkVerdicts(t, CheckVersions, []verdictCase{
		{name: "same", got: versionsVerdict(VersionsEvidence{Kubelet: "v1.34.4", Server: server("v1.34.4")}), verdict: OK, summary: []string{"0 minor"}},
		{name: "three older", got: versionsVerdict(VersionsEvidence{Kubelet: "v1.31.9", Server: server("v1.34.2-eks-3f5e6a1")}), verdict: OK, summary: []string{"3 minor"}},
		{name: "four older", got: versionsVerdict(VersionsEvidence{Kubelet: "v1.30.0", Server: server("v1.34.0")}), verdict: Fail, summary: []string{"4 minor versions older"}},
		{name: "newer", got: versionsVerdict(VersionsEvidence{Kubelet: "v1.35.0", Server: server("v1.34.9")}), verdict: Fail, summary: []string{"newer"}},
		{name: "newer major", got: versionsVerdict(VersionsEvidence{Kubelet: "v2.0.0", Server: server("v1.34.9")}), verdict: Fail, summary: []string{"newer"}},
		{name: "kubelet unknown", got: versionsVerdict(VersionsEvidence{KubeletErr: errors.New("no kubelet")}), verdict: Warn, summary: []string{"unknown"}},
		{name: "server unknown", got: versionsVerdict(VersionsEvidence{Kubelet: "v1.34.4", ServerErr: errors.New("403")}), verdict: Warn, summary: []string{"unknown"}},
		{name: "unparsable", got: versionsVerdict(VersionsEvidence{Kubelet: "devel", Server: server("v1.34.0")}), verdict: Warn, summary: []string{"cannot compare"}},
	})
}
