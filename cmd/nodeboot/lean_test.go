package main

import (
	"debug/elf"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The nodeboot binary runs on every node's boot path (docs/performance.md):
// what it links, it initialises and loads at every start. These tests keep
// out what was taken out; each says what to use instead.

// forbiddenImports are import path prefixes the agent must not link.
var forbiddenImports = []struct{ prefix, why string }{
	{"k8s.io/client-go/", "client-go's REST client, transports and metrics; read kubeconfigs with internal/k8sapi/clientcmd/v1, talk to the API server over net/http"},
	{"sigs.k8s.io/controller-runtime", "cluster-side only (its own binaries)"},
	{"k8s.io/component-base/", "logs, tracing, feature gates and Prometheus metrics registered at init; use internal/k8sapi"},
	{"github.com/prometheus/", "metrics registries built at init"},
	{"k8s.io/api/", "tens of generated API groups; use the lean types of internal/k8sapi"},
	{"k8s.io/kubelet/", "its config types pull k8s.io/component-base and k8s.io/api; use internal/k8sapi/kubeletconfig"},
	{"k8s.io/apimachinery/pkg/apis/", "meta/v1 pulls runtime, conversion and protobuf; use internal/k8sapi/meta/v1"},
	{"k8s.io/apimachinery/pkg/api/resource", "protobuf and CBOR codecs initialised at start; use internal/k8sapi/resource"},
	{"k8s.io/apimachinery/pkg/runtime", "schemes, codecs and their registrations"},
	{"k8s.io/apimachinery/pkg/util/validation", "regular expressions compiled at init (the field subpackage is fine); use internal/k8sapi/validation"},
	{"k8s.io/apimachinery/pkg/util/version", "regular expressions compiled at init"},
	{"k8s.io/klog", "flags and a flush daemon at init"},
	{"github.com/gogo/protobuf", "protobuf registrations at init"},
	{"github.com/aws/aws-sdk-go-v2/config", "the SDK loader links the STS, SSO and SSO-OIDC clients; use awsconfig.LoadNode"},
	{"github.com/aws/aws-sdk-go-v2/service/sts", "endpoint tables built at init; the node uses no STS"},
	{"github.com/aws/aws-sdk-go-v2/service/sso", "endpoint tables built at init; the node uses no SSO"},
	{"golang.org/x/net/http2", "a second HTTP/2 stack (its hpack tables built at init); net/http speaks unencrypted HTTP/2 (http.Protocols)"},
}

// allowedImports are exceptions inside forbidden prefixes.
var allowedImports = []string{"k8s.io/apimachinery/pkg/util/validation/field"}

// celImports are what the agent built for nodes (-tags celexec, as `make
// build` builds it) must not link either: max pods expressions go to the
// nodeboot-cel helper, so nodes without one never load cel-go.
var celImports = []struct{ prefix, why string }{
	{"github.com/google/cel-go/", "the old module path of cel-go (up to v0.31); cel-go belongs in internal/config/maxpods/celexpr, which only nodeboot-cel links under -tags celexec"},
	{"cel.dev/expr", "CEL's protobuf descriptors, registered at init"},
	{"cel.dev/cel-go/", "cel-go (v0.32 on) belongs in internal/config/maxpods/celexpr, which only nodeboot-cel links under -tags celexec"},
	{"google.golang.org/protobuf/", "protobuf registries and descriptors built at init"},
	{"google.golang.org/genproto/", "protobuf descriptors registered at init"},
}

func TestDependencyGraphStaysLean(t *testing.T) {
	for _, build := range []struct {
		tags      string
		forbidden []struct{ prefix, why string }
	}{
		{tags: "", forbidden: forbiddenImports},
		{tags: "celexec", forbidden: append(append([]struct{ prefix, why string }{}, forbiddenImports...), celImports...)},
	} {
		out, err := exec.Command("go", "list", "-tags", build.tags, "-deps", ".").Output()
		if err != nil {
			t.Fatalf("go list -tags %q -deps: %v", build.tags, err)
		}
		for _, pkg := range strings.Fields(string(out)) {
			for _, f := range build.forbidden {
				if strings.HasPrefix(pkg, f.prefix) && !allowed(pkg) {
					t.Errorf("cmd/nodeboot (tags %q) links %s (%s); find the importer with: go list -tags %q -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/nodeboot | grep %s",
						build.tags, pkg, f.why, build.tags, pkg)
				}
			}
		}
	}
}

func allowed(pkg string) bool {
	for _, a := range allowedImports {
		if pkg == a || strings.HasPrefix(pkg, a+"/") {
			return true
		}
	}
	return false
}

// TestOnlyCalledSDKOperationsAreLinked reads the symbols of the binary built
// in TestMain: an EC2 operation nodeboot never calls must not be in it. It is
// there when *ec2.Client is stored in an interface or a struct field (see
// internal/aws/ec2.sdkClient), which costs about 34 MB.
func TestOnlyCalledSDKOperationsAreLinked(t *testing.T) {
	f, err := elf.Open(binary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("symbols of %s: %v", binary, err)
	}
	var sawCalled bool
	for _, s := range syms {
		switch s.Name {
		case "github.com/aws/aws-sdk-go-v2/service/ec2.(*Client).DescribeInstances":
			sawCalled = true
		case "github.com/aws/aws-sdk-go-v2/service/ec2.(*Client).RunInstances",
			"github.com/aws/aws-sdk-go-v2/service/eks.(*Client).CreateCluster":
			t.Errorf("%s is linked: an SDK client is held in an interface or a struct field somewhere", s.Name)
		}
	}
	if !sawCalled {
		t.Error("ec2.(*Client).DescribeInstances is not in the binary: this test no longer checks anything")
	}
}

// compiledAtInit are calls that must not run at package initialisation.
var compiledAtInit = map[string]string{
	"regexp.MustCompile": "internal/lazyregexp or a byte loop",
	"regexp.Compile":     "internal/lazyregexp or a byte loop",
	"template.Must":      "parse on first use (sync.OnceValue)",
	"template.New":       "parse on first use (sync.OnceValue)",
}

// TestNothingCompiledAtInit parses the module's packages the binary links:
// no package-level variable may be initialised by compiling a regular
// expression or parsing a template, and no init function may exist.
func TestNothingCompiledAtInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.ImportPath}} {{.Dir}} {{join .GoFiles ","}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	fset := token.NewFileSet()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 3 || !strings.HasPrefix(fields[0], "github.com/nodeboot/nodeboot/") {
			continue
		}
		for _, name := range strings.Split(fields[2], ",") {
			file, err := parser.ParseFile(fset, filepath.Join(fields[1], name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			checkInitWork(t, fset, file)
		}
	}
}

func checkInitWork(t *testing.T, fset *token.FileSet, file *ast.File) {
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil {
				t.Errorf("%s: func init runs at every start of the agent", fset.Position(d.Pos()))
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					ast.Inspect(v, func(n ast.Node) bool {
						if _, ok := n.(*ast.FuncLit); ok {
							return false // runs later, if ever
						}
						if call, ok := n.(*ast.CallExpr); ok {
							if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
								if x, ok := sel.X.(*ast.Ident); ok {
									if instead, bad := compiledAtInit[x.Name+"."+sel.Sel.Name]; bad {
										t.Errorf("%s: %s.%s at package initialisation; use %s", fset.Position(call.Pos()), x.Name, sel.Sel.Name, instead)
									}
								}
							}
						}
						return true
					})
				}
			}
		}
	}
}
