package access

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkeks "github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
)

// FieldManager is the server-side apply field manager of `nodeboot access
// fix`: the fields it sets are attributed to it.
const FieldManager = "nodeboot-access"

// Applier carries a plan out.
type Applier struct {
	Kube kubernetes.Interface
	EKS  EKSAPI
	// Cluster is the EKS cluster's name.
	Cluster string
}

// Apply makes the plan's changes: the mode switch and access entries
// through EKS, the new mapRoles by server-side apply. The apply carries the
// resourceVersion the plan was made from, so an aws-auth changed meanwhile
// is not overwritten (the API server answers 409 Conflict).
func (a Applier) Apply(ctx context.Context, p Plan, resourceVersion string) error {
	if p.Migration != nil {
		if err := a.migrate(ctx, p.Migration); err != nil {
			return err
		}
	}
	for _, e := range p.Entries {
		if err := a.createEntry(ctx, e); err != nil {
			return err
		}
	}
	if p.AWSAuth != nil {
		return a.applyAWSAuth(ctx, p.AWSAuth, resourceVersion)
	}
	return nil
}

func (a Applier) migrate(ctx context.Context, m *Migration) error {
	_, err := a.EKS.UpdateClusterConfig(ctx, &sdkeks.UpdateClusterConfigInput{Name: aws.String(a.Cluster),
		AccessConfig: &ekstypes.UpdateAccessConfigRequest{AuthenticationMode: ekstypes.AuthenticationMode(m.To)}})
	if err != nil {
		return fmt.Errorf("eks:UpdateClusterConfig authenticationMode=%s: %w", m.To, err)
	}
	for _, e := range m.FromAWSAuth {
		if err := a.createEntry(ctx, e); err != nil && !strings.Contains(err.Error(), "ResourceInUseException") {
			return err
		}
	}
	return nil
}

func (a Applier) createEntry(ctx context.Context, e AccessEntry) error {
	_, err := a.EKS.CreateAccessEntry(ctx, &sdkeks.CreateAccessEntryInput{ClusterName: aws.String(a.Cluster),
		PrincipalArn: aws.String(e.PrincipalARN), Type: aws.String(e.Type)})
	if err != nil {
		return fmt.Errorf("eks:CreateAccessEntry %s %s: %w", e.Type, e.PrincipalARN, err)
	}
	return nil
}

// applyAWSAuth sets data.mapRoles with server-side apply under
// FieldManager. It forces ownership of that one field (another tool may own
// it), which is safe because After keeps every byte of Before and the
// resourceVersion precondition refuses to apply over a newer aws-auth.
func (a Applier) applyAWSAuth(ctx context.Context, ch *AWSAuthChange, resourceVersion string) error {
	cm := applycorev1.ConfigMap(awsauth.ConfigMapName, awsauth.ConfigMapNamespace).
		WithData(map[string]string{awsauth.KeyMapRoles: ch.After})
	if resourceVersion != "" {
		cm = cm.WithResourceVersion(resourceVersion)
	}
	_, err := a.Kube.CoreV1().ConfigMaps(awsauth.ConfigMapNamespace).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("apply kube-system/aws-auth: %w", err)
	}
	return nil
}

// Diff renders the aws-auth change as a unified diff of mapRoles: only
// lines are added, after the last ones there.
func (ch *AWSAuthChange) Diff() string {
	before := splitLines(ch.Before)
	after := splitLines(ch.After)
	var b strings.Builder
	state := "live"
	if ch.Create {
		state = "absent"
	}
	fmt.Fprintf(&b, "--- kube-system/aws-auth data.mapRoles (%s)\n+++ kube-system/aws-auth data.mapRoles (after nodeboot access fix)\n", state)
	ctxStart := max(len(before)-3, 0)
	if strings.TrimSpace(ch.Before) != "" && !strings.HasPrefix(ch.After, ch.Before) {
		// The placeholder or "[]" was replaced: show it removed.
		fmt.Fprintf(&b, "@@ -1,%d +1,%d @@\n", len(before), len(after))
		for _, l := range before {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range after {
			b.WriteString("+" + l + "\n")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", ctxStart+1, len(before)-ctxStart, ctxStart+1, len(after)-ctxStart)
	for _, l := range before[ctxStart:] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range after[len(before):] {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
