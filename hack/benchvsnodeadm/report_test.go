//go:build nodeadmbench

package benchvsnodeadm

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// formatReport renders the side-by-side table in markdown.
func formatReport(agents []*agentRun, traces []initFigures, describeCalls int) string {
	nb, na := agents[0], agents[1]
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s; %d interleaved runs of each (after %d warm-up runs); nodeadm %s; %d DescribeInstances calls in all\n\n",
		time.Now().UTC().Format("2006-01-02"), *flagRuns, *flagWarmup, *flagNodeadmVer, describeCalls)
	fmt.Fprintf(&b, "host: %s\n\n", hostLine())
	b.WriteString("| | nodeboot | nodeadm | nodeboot / nodeadm |\n|---|---|---|---|\n")
	row := func(name string, f func(sample) float64, unit string) {
		x, y := quartiles(nb.samples, f), quartiles(na.samples, f)
		fmt.Fprintf(&b, "| %s, median (p25–p75) | **%.1f %s** (%.1f–%.1f) | **%.1f %s** (%.1f–%.1f) | %.2f |\n",
			name, x[1], unit, x[0], x[2], y[1], unit, y[0], y[2], x[1]/y[1])
	}
	row("CPU, user+sys", func(s sample) float64 { return ms(s.cpu) }, "ms")
	row("peak RSS", func(s sample) float64 { return float64(s.maxRSS) / (1 << 20) }, "MiB")
	row("wall, exec → exit", func(s sample) float64 { return ms(s.wall) }, "ms")
	sb, sa := size(nb.bin), size(na.bin)
	fmt.Fprintf(&b, "| binary size (stripped) | %.1f MB | %.1f MB | %.2f |\n", sb/1e6, sa/1e6, sb/sa)
	tb, ta, bb, ba := traces[0], traces[1], traces[2], traces[3]
	fmt.Fprintf(&b, "| package init: non-std packages, median of %d | **%.2f ms** | %.2f ms | %.2f |\n",
		*flagInitRuns, tb.modules, ta.modules, tb.modules/ta.modules)
	fmt.Fprintf(&b, "| package init: every package but runtime | %.2f ms | %.2f ms | %.2f |\n", tb.all, ta.all, tb.all/ta.all)
	fmt.Fprintf(&b, "| package init: the same std packages alone (hello world) | %.2f ms | %.2f ms | |\n", bb.all, ba.all)
	fmt.Fprintf(&b, "| bytes allocated at init by non-std packages | %.0f KiB | %.0f KiB | |\n", tb.allocBytes/1024, ta.allocBytes/1024)
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
