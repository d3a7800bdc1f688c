package arenaginkgo_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenaginkgo"
	"github.com/ares-arena/arena/matchers"
)

// A spec that reports the A/B test a matcher ran, and a suite that prints
// every spec's score at its end.
func ExampleAddReportEntries() {
	_ = Describe("strategies", func() {
		It("retries beat no retries", func() {
			var res *arena.RegressionResult
			Expect(retries).To(matchers.SignificantlyBetterThan(noRetries, matchers.SaveResult(&res)))
			arenaginkgo.AddReportEntries(res)
		})
	})
	_ = ReportAfterSuite("arena scores", func(r Report) {
		for _, res := range arenaginkgo.Results(r) {
			fmt.Println(res.State, res.Entries["arena.score"], res.Entries["arena.verdict"], res.Spec)
		}
	})
}
