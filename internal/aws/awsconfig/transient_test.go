package awsconfig

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
)

func TestTransient(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "nil", err: nil, want: false},
		{name: "retries exhausted", err: fmt.Errorf("op: %w", &retry.MaxAttemptsError{Attempt: 3, Err: errors.New("x")}), want: true},
		{name: "deadline", err: fmt.Errorf("op: %w", context.DeadlineExceeded), want: true},
		{name: "cancelled", err: fmt.Errorf("op: %w", context.Canceled), want: true},
		{name: "throttling code", err: &smithy.GenericAPIError{Code: "RequestLimitExceeded", Message: "slow down"}, want: true},
		{name: "access denied", err: &smithy.GenericAPIError{Code: "UnauthorizedOperation", Message: "no"}, want: false},
		{name: "not found", err: &smithy.GenericAPIError{Code: "InvalidInstanceID.NotFound"}, want: false},
		{name: "plain error", err: errors.New("bad answer"), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Transient(tc.err); got != tc.want {
				t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
