//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Images the suite imports from local tars (build-images.sh).
const (
	pauseImage   = "registry.k8s.io/pause:3.10"
	busyboxImage = "docker.io/library/busybox:local"
)

// podResult is what runPod observed.
type podResult struct {
	podIP   string
	logs    string
	running time.Duration // created → Running
}

// runPod runs a busybox pod bound to nodeName that prints greeting, and
// reads its logs through the API server, which dials the kubelet by name
// and verifies its serving certificate (--kubelet-certificate-authority).
func runPod(ctx context.Context, c *cluster, nodeName, name, greeting string) (podResult, error) {
	grace := int64(1)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			NodeName:                      nodeName,
			Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name:            "c",
				Image:           busyboxImage,
				ImagePullPolicy: corev1.PullNever,
				Command:         []string{"/bin/sh", "-c", "echo " + greeting + "; exec sleep 3600"},
			}},
		},
	}
	start := time.Now()
	if _, err := c.admin.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return podResult{}, fmt.Errorf("create pod: %w", err)
	}
	var res podResult
	err := waitUntil(ctx, "pod "+name+" Running", 90*time.Second, 200*time.Millisecond, nil,
		func(ctx context.Context) (bool, string, error) {
			p, err := c.admin.CoreV1().Pods(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			res.podIP = p.Status.PodIP
			return p.Status.Phase == corev1.PodRunning, podStatusDetail(p), nil
		})
	if err != nil {
		return res, err
	}
	res.running = time.Since(start)
	err = waitUntil(ctx, "logs of pod "+name, 30*time.Second, 200*time.Millisecond, nil,
		func(ctx context.Context) (bool, string, error) {
			out, err := c.admin.CoreV1().Pods(pod.Namespace).GetLogs(name, &corev1.PodLogOptions{}).DoRaw(ctx)
			if err != nil {
				return false, err.Error(), nil
			}
			res.logs = string(out)
			return strings.TrimSpace(res.logs) != "", "empty logs", nil
		})
	return res, err
}

func podStatusDetail(p *corev1.Pod) string {
	parts := []string{string(p.Status.Phase)}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			parts = append(parts, w.Reason+": "+w.Message)
		}
	}
	for _, cond := range p.Status.Conditions {
		if cond.Status != corev1.ConditionTrue && cond.Message != "" {
			parts = append(parts, string(cond.Type)+": "+cond.Message)
		}
	}
	return strings.Join(parts, "; ")
}
