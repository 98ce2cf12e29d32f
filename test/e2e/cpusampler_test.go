//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// machineKey and harnessKey name, beside the world's processes, the whole
// machine (every process: /proc/stat's busy time) and this process in a
// cpuSampler's figures.
const (
	machineKey = "machine"
	harnessKey = "harness"
)

// cpuSampler records, every interval, the CPU seconds each of the world's
// processes and this process have used so far, and the machine's busy CPU
// seconds. A benchmark can then say where the machine's cores went in any
// window of its run (cores), for instance during a rollout's drains against
// during its floor: on two shared cores that decides more than any one
// process.
type cpuSampler struct {
	mu      sync.Mutex
	samples []cpuSample
	done    chan struct{}
	stopped chan struct{}
}

// cpuSample is the cumulative CPU seconds by process name at one time.
type cpuSample struct {
	at      time.Time
	seconds map[string]float64
}

// startCPUSampler samples procs (and this process and the machine) every
// interval until stop.
func startCPUSampler(procs []*process, interval time.Duration) *cpuSampler {
	s := &cpuSampler{done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			s.sample(procs)
			select {
			case <-s.done:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// stop ends the sampling and waits for the last sample.
func (s *cpuSampler) stop() {
	close(s.done)
	<-s.stopped
}

// sample records one sample; a process that has exited is left out of it.
func (s *cpuSampler) sample(procs []*process) {
	sm := cpuSample{at: time.Now(), seconds: map[string]float64{}}
	for _, p := range procs {
		if sec, err := readProcessCPU(p.pid()); err == nil {
			sm.seconds[p.name] += sec
		}
	}
	if sec, err := readProcessCPU(os.Getpid()); err == nil {
		sm.seconds[harnessKey] = sec
	}
	if sec, err := machineBusySeconds(); err == nil {
		sm.seconds[machineKey] = sec
	}
	s.mu.Lock()
	s.samples = append(s.samples, sm)
	s.mu.Unlock()
}

// cores returns the cores each process used on average over the windows
// (by the samples within each window, windows shorter than two samples
// apart left out), rounded to hundredths.
func (s *cpuSampler) cores(windows [][2]time.Time) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	used := map[string]float64{}
	var span time.Duration
	for _, w := range windows {
		first, last := s.within(w)
		if first < 0 || last <= first {
			continue
		}
		a, b := s.samples[first], s.samples[last]
		span += b.at.Sub(a.at)
		for name, sec := range b.seconds {
			if before, ok := a.seconds[name]; ok {
				used[name] += sec - before
			}
		}
	}
	out := map[string]float64{}
	for name, sec := range used {
		if span > 0 {
			out[name] = math.Round(100*sec/span.Seconds()) / 100
		}
	}
	return out
}

// within returns the first and last sample inside w (-1 if none).
func (s *cpuSampler) within(w [2]time.Time) (first, last int) {
	first, last = -1, -1
	for i, sm := range s.samples {
		if sm.at.Before(w[0]) || sm.at.After(w[1]) {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
	}
	return first, last
}

// readProcessCPU returns the user+system CPU seconds of a process.
func readProcessCPU(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command (which may contain spaces) in parentheses.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command", pid, len(fields))
	}
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100, nil // USER_HZ
}

// machineBusySeconds returns the CPU seconds the machine has spent busy,
// all CPUs together: /proc/stat's user, nice, system, irq, softirq and
// steal (not idle or iowait).
func machineBusySeconds() (float64, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var busy float64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat field %d: %w", i, err)
		}
		busy += v
	}
	return busy / 100, nil // USER_HZ
}
