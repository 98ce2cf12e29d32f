package cri

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// runtimeServer is a real gRPC CRI server (k8s.io/cri-api) answering
// Version and, when driver is set, RuntimeConfig.
type runtimeServer struct {
	runtimeapi.UnimplementedRuntimeServiceServer
	driver *runtimeapi.CgroupDriver
}

func (s *runtimeServer) Version(_ context.Context, req *runtimeapi.VersionRequest) (*runtimeapi.VersionResponse, error) {
	if req.Version != "v1" {
		return nil, errors.New("client did not send its API version")
	}
	return &runtimeapi.VersionResponse{Version: "0.1.0", RuntimeName: "containerd", RuntimeVersion: "1.7.27", RuntimeApiVersion: "v1"}, nil
}

func (s *runtimeServer) RuntimeConfig(ctx context.Context, req *runtimeapi.RuntimeConfigRequest) (*runtimeapi.RuntimeConfigResponse, error) {
	if s.driver == nil {
		return s.UnimplementedRuntimeServiceServer.RuntimeConfig(ctx, req)
	}
	return &runtimeapi.RuntimeConfigResponse{Linux: &runtimeapi.LinuxRuntimeConfiguration{CgroupDriver: *s.driver}}, nil
}

// serve starts srv on a unix socket, registered under serviceName (the
// v1 name, or v1alpha2 for an old runtime: the messages are the same).
func serve(t *testing.T, srv *runtimeServer, serviceName string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "cri.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	desc := runtimeapi.RuntimeService_ServiceDesc
	desc.ServiceName = serviceName
	g.RegisterService(&desc, srv)
	go func() { _ = g.Serve(l) }()
	t.Cleanup(g.Stop)
	return "unix://" + sock
}

func TestVersion(t *testing.T) {
	ctx := context.Background()
	want := Version{RuntimeName: "containerd", RuntimeVersion: "1.7.27", RuntimeAPIVersion: "v1"}
	for _, api := range []string{"v1", "v1alpha2"} {
		t.Run(api, func(t *testing.T) {
			endpoint := serve(t, &runtimeServer{}, "runtime."+api+".RuntimeService")
			v, err := New(endpoint, 10*time.Second).Version(ctx)
			want.APIVersion = api
			if err != nil || v != want {
				t.Errorf("Version() = %+v, %v; want %+v", v, err, want)
			}
		})
	}
	t.Run("no socket", func(t *testing.T) {
		if _, err := New(filepath.Join(t.TempDir(), "none.sock"), 10*time.Second).Version(ctx); err == nil {
			t.Error("no error without a socket")
		}
	})
}

func TestCgroupDriver(t *testing.T) {
	ctx := context.Background()
	systemd, cgroupfs := runtimeapi.CgroupDriver_SYSTEMD, runtimeapi.CgroupDriver_CGROUPFS
	tests := []struct {
		name   string
		driver *runtimeapi.CgroupDriver
		want   string
		err    error
	}{
		{"systemd (the zero value, not on the wire)", &systemd, CgroupDriverSystemd, nil},
		{"cgroupfs", &cgroupfs, CgroupDriverCgroupfs, nil},
		{"runtime without RuntimeConfig (containerd 1.6)", nil, "", ErrUnimplemented},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			endpoint := serve(t, &runtimeServer{driver: tc.driver}, "runtime.v1.RuntimeService")
			got, err := New(endpoint, 10*time.Second).CgroupDriver(ctx)
			if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Errorf("CgroupDriver() = %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
}
