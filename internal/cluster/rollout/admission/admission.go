// Package admission checks a NodeGroupRollout the way the API server does
// when it is created: against the CRD's OpenAPI schema and its
// x-kubernetes-validations rules (deploy/rollout, embedded), with the
// apiextensions-apiserver code the API server itself runs. The command
// line calls it before it creates a rollout, so that it refuses what the
// API server would refuse, with the same messages: the rules exist once,
// as markers on the Go types, and the CRD is generated from them.
package admission

import (
	"context"
	"fmt"
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	rolloutdeploy "github.com/nodeboot/nodeboot/deploy/rollout"
)

// Checker checks NodeGroupRollouts against one CRD. It is safe for
// concurrent use.
type Checker struct {
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	rules      *cel.Validator
}

// New returns a checker of the CRD manifest crd (a CustomResourceDefinition
// in YAML or JSON) for NodeGroupRollout's version.
func New(crd []byte) (*Checker, error) {
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(crd, &def); err != nil {
		return nil, fmt.Errorf("read the NodeGroupRollout CRD: %w", err)
	}
	for _, v := range def.Spec.Versions {
		if v.Name != rolloutv1.Version || v.Schema == nil {
			continue
		}
		var internal apiextensionsinternal.CustomResourceValidation
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil); err != nil {
			return nil, fmt.Errorf("convert the NodeGroupRollout schema: %w", err)
		}
		structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("the NodeGroupRollout schema is not structural: %w", err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("compile the NodeGroupRollout schema: %w", err)
		}
		return &Checker{structural: structural, schema: validator, rules: cel.NewValidator(structural, true, celconfig.PerCallLimit)}, nil
	}
	return nil, fmt.Errorf("the NodeGroupRollout CRD has no schema for version %s", rolloutv1.Version)
}

var (
	defaultChecker     *Checker
	defaultCheckerErr  error
	defaultCheckerOnce sync.Once
)

// Default returns the checker of the CRD this binary was built with.
func Default() (*Checker, error) {
	defaultCheckerOnce.Do(func() { defaultChecker, defaultCheckerErr = New(rolloutdeploy.CRD) })
	return defaultChecker, defaultCheckerErr
}

// Check returns nil when the API server would accept ro on creation, and
// otherwise the error it would answer: an Invalid status error (test it
// with apierrors.IsInvalid) naming every field at fault, as
// `NodeGroupRollout.nodeboot.io "NAME" is invalid: [FIELD: ...]`.
func (c *Checker) Check(ctx context.Context, ro *rolloutv1.NodeGroupRollout) error {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
	if err != nil {
		return fmt.Errorf("convert rollout %s: %w", ro.Name, err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetAPIVersion(rolloutv1.SchemeGroupVersion.String())
	u.SetKind(rolloutv1.Kind)
	return c.CheckObject(ctx, u)
}

// CheckObject is Check of a rollout as JSON data, for values the Go types
// cannot hold (a duration such as "1d", as the user wrote it). It defaults
// u as the API server does.
func (c *Checker) CheckObject(ctx context.Context, u *unstructured.Unstructured) error {
	if errs := c.Errors(ctx, u); len(errs) > 0 {
		return apierrors.NewInvalid(rolloutv1.SchemeGroupVersion.WithKind(rolloutv1.Kind).GroupKind(), u.GetName(), errs)
	}
	return nil
}

// Errors runs the API server's create-time checks on u, in its order:
// defaulting, the object's metadata, the OpenAPI schema, embedded objects
// and list types, then (unless an earlier error makes them meaningless,
// as the API server decides) the x-kubernetes-validations rules.
func (c *Checker) Errors(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	structuraldefaulting.Default(u.Object, c.structural)
	errs := apivalidation.ValidateObjectMetaAccessor(u, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), c.schema)...)
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, c.structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, c.structural, u.Object)...)
	if blocking(errs) {
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	ruleErrs, _ := c.rules.Validate(ctx, nil, c.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, ruleErrs...)
}

// blocking reports whether errs hold an error after which the API server
// does not evaluate the rules (apiextensions-apiserver's hasBlockingErr).
func blocking(errs field.ErrorList) bool {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}
