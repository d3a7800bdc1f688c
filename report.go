package arena

import (
	"slices"
	"time"
)

// Report is the observed and scored outcome of one run. Every field is a
// function of the run's schedule, seed and system, except WallTime: a virtual
// run replayed with the same seed gives the same report, WallTime aside.
type Report struct {
	Seed            uint64         `json:"seed"`
	Virtual         bool           `json:"virtual"`
	Start           time.Time      `json:"start"`
	End             time.Time      `json:"end"`
	Score           Score          `json:"score"`
	Faults          []FaultOutcome `json:"faults"`
	InjectionErrors []Result       `json:"injection_errors"` // faults that did not land: not scored
	Recovered       int            `json:"recovered"`
	Unrecovered     int            `json:"unrecovered"`
	MTTR            Duration       `json:"mttr"`    // mean TTR of recovered faults
	P95TTR          Duration       `json:"p95_ttr"` // nearest-rank 95th percentile
	MaxTTR          Duration       `json:"max_ttr"`
	Downtime        Duration       `json:"downtime"` // unhealthy samples × probe interval
	Samples         int            `json:"samples"`
	HealthySamples  int            `json:"healthy_samples"`
	Checks          []CheckResult  `json:"checks"`
	Timeline        []Transition   `json:"timeline"`
	TimelineDropped int            `json:"timeline_dropped,omitempty"`
	WallTime        Duration       `json:"wall_time"`
}

// Report builds the run's report from what was observed so far. Call it
// after Finish for the final report; during a run it is a live snapshot.
func (o *Observer) Report(seed uint64) *Report {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := &Report{
		Seed:            seed,
		Virtual:         o.ex.Virtual(),
		Start:           o.start,
		End:             o.ex.Now(),
		Faults:          make([]FaultOutcome, 0, len(o.faults)),
		InjectionErrors: append([]Result{}, o.injectionErrs...),
		Samples:         o.samples,
		HealthySamples:  o.healthySamples,
		Checks:          append([]CheckResult{}, o.checkResults...),
		Timeline:        append([]Transition{}, o.timeline...),
		TimelineDropped: o.dropped,
		Downtime:        Duration(time.Duration(o.samples-o.healthySamples) * o.opts.ProbeInterval),
	}
	in := Inputs{Samples: o.samples, HealthySamples: o.healthySamples}
	var ttrs []time.Duration
	for _, f := range o.faults {
		r.Faults = append(r.Faults, f.out)
		if o.probe == nil || !f.done {
			continue // not followed, or still open: no verdict yet
		}
		in.Recovered = append(in.Recovered, f.out.Recovered)
		in.TTRs = append(in.TTRs, f.out.TTR.D())
		if f.out.Recovered {
			r.Recovered++
			ttrs = append(ttrs, f.out.TTR.D())
		} else {
			r.Unrecovered++
		}
	}
	for _, c := range o.checkResults {
		in.Checks++
		if c.Passed {
			in.PassedChecks++
		}
	}
	r.Score = ComputeScore(in, o.opts.Scoring)
	r.MTTR, r.P95TTR, r.MaxTTR = ttrStats(ttrs)
	return r
}

func ttrStats(ttrs []time.Duration) (mean, p95, maxTTR Duration) {
	if len(ttrs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ttrs)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	rank := (95*len(s) + 99) / 100 // nearest rank: ceil(0.95 n)
	return Duration(sum / time.Duration(len(s))), Duration(s[rank-1]), Duration(s[len(s)-1])
}
