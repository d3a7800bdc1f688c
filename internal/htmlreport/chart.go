package htmlreport

import (
	"bytes"
	"fmt"
	"image/color"
	"regexp"
	"sync"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ares-arena/arena"
)

// Chart sizes, in points; the page scales the SVG to its width.
const (
	chartWidth  = 9 * vg.Inch
	chartHeight = 3 * vg.Inch
)

// Colours of the chart, shared with the page's CSS.
var (
	healthyFill   = color.NRGBA{R: 0x2e, G: 0x9e, B: 0x5b, A: 0x40}
	healthyLine   = color.RGBA{R: 0x1f, G: 0x7a, B: 0x45, A: 0xff}
	recoveredMark = color.RGBA{R: 0x25, G: 0x63, B: 0xeb, A: 0xff}
	lostMark      = color.RGBA{R: 0xdc, G: 0x26, B: 0x26, A: 0xff}
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

// Chart draws the health of a run over time as an SVG fragment for inline
// use in HTML: the probe's verdict as a filled step line (1 healthy, 0 not),
// and each landed fault as a marker at its injection, blue when it
// recovered and red when it did not. The legend is the page's (HTML), so
// that it never hides data. The SVG uses no fonts or images from outside:
// text is drawn with the page's font.
func Chart(rep *arena.Report) ([]byte, error) {
	length := rep.End.Sub(rep.Start)
	unit, unitName := timeUnit(length)
	x := func(d arena.Duration) float64 { return float64(d) / float64(unit) }

	p := plot.New()
	p.X.Label.Text = "time since start (" + unitName + ")"
	p.Y.Label.Text = "probe"
	p.Y.Min, p.Y.Max = 0, 1.3
	p.X.Min, p.X.Max = 0, max(x(arena.Duration(length)), 1e-9)
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "unhealthy"}, {Value: 1, Label: "healthy"}})
	p.Add(plotter.NewGrid())
	sans(p)

	if len(rep.Timeline) > 0 {
		pts := make(plotter.XYs, 0, len(rep.Timeline)+1)
		for _, tr := range rep.Timeline {
			pts = append(pts, plotter.XY{X: x(tr.At), Y: health(tr.Healthy)})
		}
		pts = append(pts, plotter.XY{X: x(arena.Duration(length)), Y: pts[len(pts)-1].Y})
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("health line: %w", err)
		}
		line.StepStyle = plotter.PostStep
		line.FillColor = healthyFill
		line.Color = healthyLine
		line.Width = vg.Points(1.5)
		p.Add(line)
	}

	var recovered, lost plotter.XYs
	for _, f := range rep.Faults {
		pt := plotter.XY{X: x(f.At), Y: 1.15}
		if f.Recovered {
			recovered = append(recovered, pt)
		} else {
			lost = append(lost, pt)
		}
	}
	for _, m := range []struct {
		pts plotter.XYs
		c   color.Color
	}{{recovered, recoveredMark}, {lost, lostMark}} {
		if len(m.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(m.pts)
		if err != nil {
			return nil, fmt.Errorf("fault markers: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: m.c, Radius: vg.Points(4), Shape: draw.PyramidGlyph{}}
		p.Add(sc)
	}

	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	return inline(buf.Bytes()), nil
}

// sans sets every text of p in Liberation Sans (embedded in gonum's font
// cache, so layout needs nothing from the system), which the page's CSS
// matches with Arial and Helvetica, metric-compatible fallbacks.
func sans(p *plot.Plot) {
	for _, f := range []*font.Font{
		&p.Title.TextStyle.Font,
		&p.X.Label.TextStyle.Font, &p.X.Tick.Label.Font,
		&p.Y.Label.TextStyle.Font, &p.Y.Tick.Label.Font,
	} {
		f.Typeface, f.Variant = "Liberation", "Sans"
	}
}

func health(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// svgEdits are inline's expressions, compiled on first use rather than at
// package init.
var svgEdits = sync.OnceValue(func() (e struct{ prolog, size, xmlns, fontFamily *regexp.Regexp }) {
	e.prolog = regexp.MustCompile(`(?s)^.*?<svg `)
	e.size = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
	e.xmlns = regexp.MustCompile(`\s+xmlns(:\w+)?="[^"]*"`)
	e.fontFamily = regexp.MustCompile(`font-family:[^;"]*;?`)
	return e
})

// inline turns a standalone SVG document into an element for HTML: no XML
// prolog or comment, no namespace declarations (an <svg> in HTML is in the
// SVG namespace anyway, and the page then holds no URL at all), sized by
// CSS, and its text in the page's font instead of a font the reader may not
// have.
func inline(svg []byte) []byte {
	re := svgEdits()
	svg = re.prolog.ReplaceAll(svg, []byte("<svg "))
	svg = re.size.ReplaceAll(svg, []byte(`<svg class="chart" role="img" aria-label="probe health over time, with fault injections"`))
	svg = re.xmlns.ReplaceAll(svg, nil)
	return re.fontFamily.ReplaceAll(svg, nil)
}
