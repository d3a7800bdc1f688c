package htmlreport

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
)

// The chart's frame, in SVG user units (points); the page scales the SVG
// to its width.
const (
	chartWidth   = 648 // 9 in
	chartHeight  = 216 // 3 in
	marginLeft   = 64  // the y tick labels and the axis label
	marginRight  = 12
	marginTop    = 8
	marginBottom = 40 // the x tick labels and the axis label
	plotWidth    = chartWidth - marginLeft - marginRight
	plotHeight   = chartHeight - marginTop - marginBottom
	yTop         = 1.3 // the y axis runs from 0 (unhealthy) to 1.3, room for the markers above 1
	markerY      = 1.15
)

// Colours of the chart, shared with the page's CSS.
const (
	gridColour    = "#e0e0e0"
	axisColour    = "#333333"
	healthyFill   = "#2e9e5b"
	healthyLine   = "#1f7a45" // the browser test finds the health line by it
	recoveredMark = "#2563eb"
	lostMark      = "#dc2626"
)

// timeUnit picks the unit of the time axis for a run of length d.
func timeUnit(d time.Duration) (time.Duration, string) {
	switch {
	case d <= 3*time.Minute:
		return time.Second, "s"
	case d <= 3*time.Hour:
		return time.Minute, "min"
	default:
		return time.Hour, "h"
	}
}

// Chart draws the health of a run over time as an SVG element for inline
// use in HTML: the probe's verdict as a filled step line (1 healthy, 0 not),
// and each landed fault as a triangle at its injection, blue when it
// recovered and red when it did not. The legend is the page's (HTML), so
// that it never hides data. The SVG names no font and loads nothing: its
// text takes the page's font, and an <svg> in HTML needs no namespace.
//
// It is written by hand rather than with a plotting library: a step line,
// markers and two axes are a few dozen lines, and gonum/plot brought 55
// packages (LaTeX, PDF, fonts; 15 MB of modules) into the CLI for them.
func Chart(rep *engine.Report) ([]byte, error) {
	length := rep.End.Sub(rep.Start)
	unit, unitName := timeUnit(length)
	xMax := max(float64(length)/float64(unit), 1e-9)
	px := func(v float64) float64 { return marginLeft + v/xMax*plotWidth }
	py := func(v float64) float64 { return marginTop + (1-v/yTop)*plotHeight }
	x := func(d clock.Duration) float64 { return float64(d) / float64(unit) }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg class="chart" role="img" aria-label="probe health over time, with fault injections" viewBox="0 0 %d %d">`, chartWidth, chartHeight)
	b.WriteString("\n")

	// Grid and ticks.
	ticks := niceTicks(xMax)
	for _, v := range ticks {
		fmt.Fprintf(&b, `<path d="M%s %sV%s" stroke="%s" fill="none"/>`+"\n", f(px(v)), f(py(0)), f(py(yTop)), gridColour)
		fmt.Fprintf(&b, `<path d="M%s %sv4" stroke="%s" fill="none"/>`+"\n", f(px(v)), f(py(0)), axisColour)
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="10" text-anchor="middle">%s</text>`+"\n", f(px(v)), f(py(0)+15), tickLabel(v))
	}
	for _, t := range []struct {
		v     float64
		label string
	}{{0, "unhealthy"}, {1, "healthy"}} {
		fmt.Fprintf(&b, `<path d="M%s %sH%s" stroke="%s" fill="none"/>`+"\n", f(px(0)), f(py(t.v)), f(px(xMax)), gridColour)
		fmt.Fprintf(&b, `<path d="M%s %sh-4" stroke="%s" fill="none"/>`+"\n", f(px(0)), f(py(t.v)), axisColour)
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="10" text-anchor="end">%s</text>`+"\n", f(px(0)-6), f(py(t.v)+3.5), t.label)
	}
	// Axes and their labels.
	fmt.Fprintf(&b, `<path d="M%s %sV%sH%s" stroke="%s" fill="none"/>`+"\n", f(px(0)), f(py(yTop)), f(py(0)), f(px(xMax)), axisColour)
	fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="11" text-anchor="middle">time since start (%s)</text>`+"\n", f(px(xMax/2)), chartHeight-6, unitName)
	fmt.Fprintf(&b, `<text x="12" y="%s" font-size="11" text-anchor="middle" transform="rotate(-90 12 %s)">probe</text>`+"\n", f(py(yTop/2)), f(py(yTop/2)))

	// The health line: a step after each transition, to the end of the run.
	if len(rep.Timeline) > 0 {
		var line bytes.Buffer
		fmt.Fprintf(&line, "M%s %s", f(px(x(rep.Timeline[0].At))), f(py(health(rep.Timeline[0].Healthy))))
		for _, tr := range rep.Timeline[1:] {
			fmt.Fprintf(&line, "H%sV%s", f(px(x(tr.At))), f(py(health(tr.Healthy))))
		}
		fmt.Fprintf(&line, "H%s", f(px(xMax)))
		d := line.String()
		fmt.Fprintf(&b, `<path d="%sV%sH%sZ" fill="%s" fill-opacity="0.25" stroke="none"/>`+"\n", d, f(py(0)), f(px(x(rep.Timeline[0].At))), healthyFill)
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", d, healthyLine)
	}

	// A triangle at each landed fault's injection.
	for _, flt := range rep.Faults {
		c := lostMark
		if flt.Recovered {
			c = recoveredMark
		}
		cx, cy := px(x(flt.At)), py(markerY)
		fmt.Fprintf(&b, `<path d="M%s %sl4 7h-8Z" fill="%s" stroke="%s"/>`+"\n", f(cx), f(cy-3.5), c, c)
	}
	b.WriteString("</svg>")
	return b.Bytes(), nil
}

// niceTicks returns tick values from 0 to at most top, 1, 2 or 5 × 10^k
// apart, about five to ten of them.
func niceTicks(top float64) []float64 {
	raw := top / 8
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if step = m * mag; step >= raw {
			break
		}
	}
	var ticks []float64
	for i := 0; ; i++ {
		v := float64(i) * step
		if v > top*(1+1e-9) {
			return ticks
		}
		ticks = append(ticks, v)
	}
}

// tickLabel writes v with no more digits than it needs.
func tickLabel(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// f writes a coordinate to a tenth of a point.
func f(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

func health(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}
