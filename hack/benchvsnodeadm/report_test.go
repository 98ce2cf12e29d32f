//go:build nodeadmbench

package benchvsnodeadm

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// formatReport renders the side-by-side table in markdown: one column per
// agent (nodeadm last), then each other agent's ratio to nodeadm.
func formatReport(agents []*agentRun, baselines []initFigures, describeCalls int) string {
	na := agents[len(agents)-1]
	others := agents[:len(agents)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s; %d interleaved runs of each (after %d warm-up runs); nodeadm %s; %d DescribeInstances calls in all\n\n",
		time.Now().UTC().Format("2006-01-02"), *flagRuns, *flagWarmup, *flagNodeadmVer, describeCalls)
	sched := "init traced under normal scheduling"
	if *flagRT > 0 {
		sched = fmt.Sprintf("init traced under chrt -f %d", *flagRT)
	}
	fmt.Fprintf(&b, "host: %s; %s\n\n", hostLine(), sched)
	b.WriteString("|")
	for _, a := range agents {
		b.WriteString(" | " + a.name)
	}
	for _, a := range others {
		b.WriteString(" | " + a.name + " / nodeadm")
	}
	b.WriteString(" |\n|---")
	for range len(agents) + len(others) {
		b.WriteString("|---")
	}
	b.WriteString("|\n")
	row := func(name string, cell func(a *agentRun) (string, float64)) {
		b.WriteString("| " + name)
		for _, a := range agents {
			text, _ := cell(a)
			b.WriteString(" | " + text)
		}
		_, base := cell(na)
		for _, a := range others {
			_, v := cell(a)
			if base == 0 {
				b.WriteString(" | ")
				continue
			}
			fmt.Fprintf(&b, " | %.2f", v/base)
		}
		b.WriteString(" |\n")
	}
	sampled := func(name, unit string, f func(sample) float64) {
		row(name+", median (p25–p75)", func(a *agentRun) (string, float64) {
			q := quartiles(a.samples, f)
			return fmt.Sprintf("**%.1f %s** (%.1f–%.1f)", q[1], unit, q[0], q[2]), q[1]
		})
	}
	sampled("CPU, user+sys", "ms", func(s sample) float64 { return ms(s.cpu) })
	sampled("peak RSS", "MiB", func(s sample) float64 { return float64(s.maxRSS) / (1 << 20) })
	sampled("wall, exec → exit", "ms", func(s sample) float64 { return ms(s.wall) })
	row("binary size (stripped)", func(a *agentRun) (string, float64) {
		return fmt.Sprintf("%.1f MB", size(a.bin)/1e6), size(a.bin)
	})
	row(fmt.Sprintf("package init, non-std packages (median of %d)", *flagInitRuns), func(a *agentRun) (string, float64) {
		return fmt.Sprintf("**%.2f ms**", a.init.modules), a.init.modules
	})
	row("package init, every package but runtime", func(a *agentRun) (string, float64) {
		return fmt.Sprintf("%.2f ms", a.init.all), a.init.all
	})
	row("bytes allocated at init by non-std packages", func(a *agentRun) (string, float64) {
		return fmt.Sprintf("%.0f KiB", a.init.allocBytes/1024), a.init.allocBytes
	})
	fmt.Fprintf(&b, "\nThe same std packages alone (a hello world importing them): %.2f ms for nodeboot's, %.2f ms for nodeadm's.\n",
		baselines[0].all, baselines[1].all)
	return b.String()
}

// quartiles returns p25, median and p75 of f over samples.
func quartiles(samples []sample, f func(sample) float64) [3]float64 {
	v := make([]float64, len(samples))
	for i, s := range samples {
		v[i] = f(s)
	}
	slices.Sort(v)
	at := func(q float64) float64 { return v[int(q*float64(len(v)-1)+0.5)] }
	return [3]float64{at(0.25), at(0.5), at(0.75)}
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func size(p string) float64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return float64(st.Size())
}
