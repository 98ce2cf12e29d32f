// Command authserveroracle runs EKS's authenticator's own webhook server
// (sigs.k8s.io/aws-iam-authenticator/pkg/server, built in this module with
// its own pins) in process, with its EKSConfigMap backend, so that
// test/oracle (TestAuthenticatorRendersTemplates) can send it TokenReviews
// and compare the users it answers (username and group templates rendered
// by the server's unexported renderTemplate) with what nodeboot predicts.
//
// Protocol: the first line on stdin is a JSON object {"clusterID": ...,
// "stateDir": ..., "data": {...}}: the cluster, a directory for the server's
// certificate and key, and the data of kube-system/aws-auth; the program answers with one JSON line
// {"url": "https://127.0.0.1:PORT/authenticate", "certPEM": "..."} (the
// server's self-signed certificate, to trust), or {"error": "..."}, then
// serves until stdin ends. The server makes its own HTTPS calls (STS's
// GetCallerIdentity for every token, EC2's DescribeInstances for
// {{EC2PrivateDNSName}}) as the real binary does: the caller's environment
// (HTTPS_PROXY, SSL_CERT_FILE, AWS_REGION, credentials) routes them.
//
// What this program does that the aws-iam-authenticator binary does not:
// its configuration comes from this JSON instead of a file and flags, and
// the ConfigMap reaches the backend's watch from a local stub of the API
// server's watch endpoint. Like the binary, the server also serves its
// health check on :21363 (errors ignored, as the binary does).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/aws-iam-authenticator/pkg/config"
	"sigs.k8s.io/aws-iam-authenticator/pkg/mapper"
	"sigs.k8s.io/aws-iam-authenticator/pkg/metrics"
	"sigs.k8s.io/aws-iam-authenticator/pkg/server"
)

// request is what the caller sends first.
type request struct {
	ClusterID string            `json:"clusterID"`
	StateDir  string            `json:"stateDir"`
	Data      map[string]string `json:"data"`
}

type ready struct {
	URL     string `json:"url,omitempty"`
	CertPEM string `json:"certPEM,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	r, cleanup, err := start(in)
	if err != nil {
		r = ready{Error: err.Error()}
	}
	if err := out.Encode(r); err != nil {
		os.Exit(1)
	}
	// Serve until the caller closes stdin.
	_, _ = io.Copy(io.Discard, in)
	if cleanup != nil {
		cleanup()
	}
}

// start reads the request and starts the server as the binary's `server`
// command does (metrics, server.New, Run).
func start(in *bufio.Reader) (ready, func(), error) {
	line, err := in.ReadBytes('\n')
	if err != nil {
		return ready{}, nil, fmt.Errorf("read request: %w", err)
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return ready{}, nil, err
	}
	watch, err := startWatch(req.Data)
	if err != nil {
		return ready{}, nil, err
	}
	cfg, err := serverConfig(req.ClusterID, req.StateDir, watch)
	if err != nil {
		return ready{}, nil, err
	}
	metrics.InitMetrics(prometheus.NewRegistry())
	stop := make(chan struct{})
	srv := server.New(cfg, stop)
	go srv.Run(stop)
	cert, err := os.ReadFile(cfg.CertPath())
	if err != nil {
		return ready{}, nil, err
	}
	cleanup := func() {
		close(stop)
		srv.Close()
	}
	return ready{URL: cfg.ServerURL(), CertPEM: string(cert)}, cleanup, nil
}

// serverConfig is the configuration the e2e suite gives the binary, with
// the EKSConfigMap backend reading the watch stub, and the binary's
// default DescribeInstances rate.
func serverConfig(clusterID, dir, master string) (config.Config, error) {
	port, err := freePort()
	if err != nil {
		return config.Config{}, err
	}
	return config.Config{
		PartitionID: "aws", ClusterID: clusterID,
		HostPort: port, Hostname: "127.0.0.1", Address: "127.0.0.1",
		StateDir: dir, GenerateKubeconfigPath: filepath.Join(dir, "kubeconfig.yaml"), KubeconfigPregenerated: true,
		Master: master, BackendMode: []string{mapper.ModeEKSConfigMap},
		EC2DescribeInstancesQps: 15, EC2DescribeInstancesBurst: 5,
	}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startWatch serves the watch of kube-system/aws-auth the backend opens:
// the ConfigMap as an ADDED event, then the stream stays open (a closed
// stream makes the backend watch again at once).
func startWatch(data map[string]string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	event, err := json.Marshal(map[string]any{"type": "ADDED", "object": map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "aws-auth", "namespace": "kube-system", "resourceVersion": "1"},
		"data":     data,
	}})
	if err != nil {
		return "", err
	}
	go func() {
		_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/api/v1/namespaces/kube-system/configmaps" || r.URL.Query().Get("watch") != "true" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(append(event, '\n'))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
	}()
	return "http://" + l.Addr().String(), nil
}
