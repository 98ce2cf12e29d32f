package doctor

import (
	"context"
	"fmt"
	"net/http"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// NodeRegistered asks the API server, as the kubelet (its kubeconfig and
// credential, read afresh: TLS bootstrap may have replaced them), whether
// the kubelet's Node exists. It returns false and why while it does not.
func (d Doctor) NodeRegistered(ctx context.Context) (bool, error) {
	f := Files{Root: d.Root}
	host := ""
	if d.Hostname != nil {
		host, _ = d.Hostname()
	}
	k := ReadKubeletFacts(f, host)
	conn := kubeletConnection(f, k)
	if conn.Err != nil {
		return false, conn.Err
	}
	resolver := kubeapi.Resolver{ReadFile: f.Read, Run: d.Commands, Environ: d.pluginEnv(k), ExecTimeout: execPluginBound}
	cas, err := resolver.CAs(conn.Cluster)
	if err != nil {
		return false, err
	}
	cred, err := resolver.Credential(ctx, conn.Cluster, conn.User)
	if err != nil {
		return false, fmt.Errorf("kubelet credential: %w", err)
	}
	client, err := kubeapi.New(kubeapi.Options{Server: conn.Cluster.Server, TLSServerName: conn.Cluster.TLSServerName,
		CAs: cas, Credential: cred, Proxy: conn.Proxy, Timeout: apiCallBound})
	if err != nil {
		return false, err
	}
	_, err = client.Node(ctx, k.NodeName)
	switch {
	case err == nil:
		return true, nil
	case kubeapi.IsStatus(err, http.StatusNotFound):
		return false, fmt.Errorf("the Node %s is not registered yet", k.NodeName)
	}
	return false, fmt.Errorf("get Node %s: %w", k.NodeName, err)
}
