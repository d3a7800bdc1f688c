// Package arenaginkgo reports arena's results in Ginkgo suites, and reads
// them back from a suite's report.
//
// arenatest's helpers need nothing from it: given GinkgoT(), they add their
// figures (arenatest.Entries: arena.score, arena.grade, arena.seed, …) as
// report entries themselves, so that Ginkgo writes them to its
// --json-report and --junit-report files (in JUnit, as properties of the
// spec's testcase). This package does the same for results made elsewhere,
// and keeps Ginkgo out of the packages that plain go test users import:
//
//	It("retries beat no retries", Label("ab"), func() {
//		var res *regression.Result
//		Expect(retries).To(matchers.SignificantlyBetterThan(noRetries, matchers.SaveResult(&res)))
//		arenaginkgo.AddReportEntries(res)
//	})
//
// Results reads the entries back, in a ReportAfterSuite or from a JSON
// report file (ReadResults), to print a table of scores or to gate on them.
//
// Ginkgo's --junit-report writes each entry's value as JSON, so a string
// such as the grade reads "\"A+\"" there (numbers read plainly). For a JUnit
// file whose arena properties are plain text, write it from the suite with
// GenerateJUnitReport:
//
//	var _ = ReportAfterSuite("junit", func(r Report) {
//		Expect(arenaginkgo.GenerateJUnitReport(r, "junit.xml")).To(Succeed())
//	})
package arenaginkgo

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/ares-arena/arena/arenatest"
)

// AddReportEntries adds the figures of an arena result — an
// *scenario.Report, *engine.SurvivalReport, *engine.Report or
// *regression.Result — to the running spec's report, shown when the
// spec fails or with -v. Anything else adds nothing.
func AddReportEntries(result any) {
	for _, e := range arenatest.Entries(result) {
		ginkgo.AddReportEntry(e.Key, e.Value, ginkgo.ReportEntryVisibilityFailureOrVerbose, ginkgo.Offset(1))
	}
}

// SpecResult is what a suite report holds of one spec's arena figures.
type SpecResult struct {
	Spec   string          // the spec's full text
	Labels []string        // its labels, containers' included
	State  types.SpecState // passed, failed, …
	// Entries maps each arena entry ("arena.score") to its value as
	// Ginkgo shows it ("97.6"); a spec that ran several times keeps the
	// last value of each.
	Entries map[string]string
}

// Results returns the specs of report that have arena entries, in the
// report's order.
func Results(report types.Report) []SpecResult {
	var out []SpecResult
	for _, spec := range report.SpecReports {
		entries := map[string]string{}
		for _, e := range spec.ReportEntries {
			if strings.HasPrefix(e.Name, "arena.") {
				entries[e.Name] = e.StringRepresentation()
			}
		}
		if len(entries) > 0 {
			out = append(out, SpecResult{Spec: spec.FullText(), Labels: spec.Labels(), State: spec.State, Entries: entries})
		}
	}
	return out
}

// ReadResults reads a report file written by ginkgo --json-report (or a
// test binary's -ginkgo.json-report) and returns the arena results of all
// its suites.
func ReadResults(path string) ([]SpecResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []SpecResult
	for _, r := range reports {
		out = append(out, Results(r)...)
	}
	return out, nil
}

// GenerateJUnitReport writes report as Ginkgo's JUnit reporter does
// (reporters.GenerateJUnitReport), except that arena's properties
// ("arena.grade" and the rest) hold their values as plain text ("A+")
// instead of Ginkgo's JSON ("\"A+\""). Other properties are left as Ginkgo
// writes them.
func GenerateJUnitReport(report types.Report, dst string) error {
	if err := reporters.GenerateJUnitReport(report, dst); err != nil {
		return err
	}
	data, err := os.ReadFile(dst)
	if err != nil {
		return err
	}
	var doc reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", dst, err)
	}
	for i := range doc.TestSuites {
		for j := range doc.TestSuites[i].TestCases {
			props := doc.TestSuites[i].TestCases[j].Properties
			if props == nil {
				continue
			}
			for k, p := range props.Properties {
				var v string
				if strings.HasPrefix(p.Name, "arena.") && json.Unmarshal([]byte(p.Value), &v) == nil {
					props.Properties[k].Value = v
				}
			}
		}
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, _ = f.WriteString(xml.Header)
	enc := xml.NewEncoder(f)
	enc.Indent("  ", "    ")
	if err := enc.Encode(doc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
