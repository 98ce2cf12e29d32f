package access

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkeks "github.com/aws/aws-sdk-go-v2/service/eks"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
)

// EKSAPI is what the check and the fix call on EKS.
type EKSAPI interface {
	DescribeCluster(ctx context.Context, in *sdkeks.DescribeClusterInput, optFns ...func(*sdkeks.Options)) (*sdkeks.DescribeClusterOutput, error)
	ListAccessEntries(ctx context.Context, in *sdkeks.ListAccessEntriesInput, optFns ...func(*sdkeks.Options)) (*sdkeks.ListAccessEntriesOutput, error)
	DescribeAccessEntry(ctx context.Context, in *sdkeks.DescribeAccessEntryInput, optFns ...func(*sdkeks.Options)) (*sdkeks.DescribeAccessEntryOutput, error)
	CreateAccessEntry(ctx context.Context, in *sdkeks.CreateAccessEntryInput, optFns ...func(*sdkeks.Options)) (*sdkeks.CreateAccessEntryOutput, error)
	UpdateClusterConfig(ctx context.Context, in *sdkeks.UpdateClusterConfigInput, optFns ...func(*sdkeks.Options)) (*sdkeks.UpdateClusterConfigOutput, error)
}

// KubeAPI is what the check reads through the API server.
type KubeAPI interface {
	ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error)
	DaemonSet(ctx context.Context, namespace, name string) (*appsv1.DaemonSet, error)
	Nodes(ctx context.Context, labelSelector string) ([]corev1.Node, error)
}

// Clientset reads through a client-go clientset.
type Clientset struct{ kubernetes.Interface }

// ConfigMap gets a ConfigMap.
func (c Clientset) ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	return c.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
}

// DaemonSet gets a DaemonSet.
func (c Clientset) DaemonSet(ctx context.Context, namespace, name string) (*appsv1.DaemonSet, error) {
	return c.AppsV1().DaemonSets(namespace).Get(ctx, name, metav1.GetOptions{})
}

// Nodes lists the Nodes a label selector selects.
func (c Clientset) Nodes(ctx context.Context, labelSelector string) ([]corev1.Node, error) {
	list, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labelSelector})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// Gatherer reads what the check needs: the cluster's ConfigMaps, the
// aws-node DaemonSet and Nodes through the API server, and the
// authentication mode and access entries through EKS (nil EKS: unknown).
type Gatherer struct {
	Kube KubeAPI
	EKS  EKSAPI
	// Name and Region are the EKS cluster's.
	Name, Region string
}

// Gather reads the cluster; what cannot be read is recorded in the
// Cluster's error fields, never returned.
func (g Gatherer) Gather(ctx context.Context) Cluster {
	c := Cluster{Name: g.Name, Region: g.Region}
	var wg sync.WaitGroup
	wg.Go(func() { c.AWSAuth, c.AWSAuthFound, c.AWSAuthErr = g.configMap(ctx, awsauth.ConfigMapName) })
	wg.Go(func() { c.CNI = g.cni(ctx) })
	wg.Go(func() { c.LinuxNodes, c.NodesErr = g.linuxNodes(ctx) })
	wg.Go(func() { g.eks(ctx, &c) })
	wg.Wait()
	return c
}

func (g Gatherer) configMap(ctx context.Context, name string) (map[string]string, bool, error) {
	cm, err := g.Kube.ConfigMap(ctx, awsauth.ConfigMapNamespace, name)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("get configmap %s/%s: %w", awsauth.ConfigMapNamespace, name, err)
	}
	return cm.Data, true, nil
}

// cni reads amazon-vpc-cni and the aws-node container's plain environment
// variables (values from references are not resolved).
func (g Gatherer) cni(ctx context.Context) CNI {
	var c CNI
	c.ConfigMap, c.ConfigMapFound, _ = g.configMap(ctx, cniConfigMap)
	ds, err := g.Kube.DaemonSet(ctx, awsauth.ConfigMapNamespace, cniDaemonSet)
	if err != nil {
		return c
	}
	c.DaemonSetFound, c.Env = true, map[string]string{}
	for _, ctr := range ds.Spec.Template.Spec.Containers {
		if ctr.Name != cniDaemonSet {
			continue
		}
		for _, e := range ctr.Env {
			c.Env[e.Name] = e.Value
		}
	}
	return c
}

func (g Gatherer) linuxNodes(ctx context.Context) (int, error) {
	nodes, err := g.Kube.Nodes(ctx, corev1.LabelOSStable+"=linux")
	if err != nil {
		return 0, fmt.Errorf("list nodes: %w", err)
	}
	return len(nodes), nil
}

// eks reads the authentication mode and, when the mode has the API, every
// access entry.
func (g Gatherer) eks(ctx context.Context, c *Cluster) {
	if g.EKS == nil {
		c.ModeErr = errors.New("no EKS API (--no-eks)")
		return
	}
	out, err := g.EKS.DescribeCluster(ctx, &sdkeks.DescribeClusterInput{Name: aws.String(g.Name)})
	if err != nil {
		c.ModeErr = fmt.Errorf("eks:DescribeCluster: %w", err)
		return
	}
	if out.Cluster.KubernetesNetworkConfig != nil {
		c.IPFamily = string(out.Cluster.KubernetesNetworkConfig.IpFamily)
	}
	c.Mode = ModeConfigMap // clusters older than access entries have no accessConfig
	if ac := out.Cluster.AccessConfig; ac != nil && ac.AuthenticationMode != "" {
		c.Mode = string(ac.AuthenticationMode)
	}
	if c.Mode != ModeConfigMap {
		c.Entries, c.EntriesErr = g.accessEntries(ctx)
	}
}

// accessEntries lists and describes every access entry.
func (g Gatherer) accessEntries(ctx context.Context) ([]AccessEntry, error) {
	var out []AccessEntry
	p := sdkeks.NewListAccessEntriesPaginator(g.EKS, &sdkeks.ListAccessEntriesInput{ClusterName: aws.String(g.Name)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return out, fmt.Errorf("eks:ListAccessEntries: %w", err)
		}
		for _, arn := range page.AccessEntries {
			d, err := g.EKS.DescribeAccessEntry(ctx, &sdkeks.DescribeAccessEntryInput{ClusterName: aws.String(g.Name), PrincipalArn: aws.String(arn)})
			if err != nil {
				return out, fmt.Errorf("eks:DescribeAccessEntry %s: %w", arn, err)
			}
			e := d.AccessEntry
			out = append(out, AccessEntry{PrincipalARN: arn, Type: aws.ToString(e.Type), Username: aws.ToString(e.Username), Groups: e.KubernetesGroups})
		}
	}
	return out, nil
}
