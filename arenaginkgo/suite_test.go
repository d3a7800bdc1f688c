package arenaginkgo_test

import (
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena/arenaginkgo"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
	"github.com/ares-arena/arena/regression"
)

// Ginkgo leaves its interrupt handler's goroutine running after RunSpecs
// (it waits for SIGINT for the rest of the process); it is Ginkgo's, not a
// leak of the code under test, so goleak ignores it and nothing else.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction(
		"github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"))
}

func TestSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "arenaginkgo")
}

var (
	retries   = fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetries = fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
)

var _ = Describe("arena under Ginkgo", Label("chaos"), func() {
	It("runs a scenario", Label("scenario"), func() {
		rep := arenatest.Run(GinkgoT(), "leader-failover", arenatest.WithSeed(7)) // the line TestReportFiles expects its entries at
		Expect(rep).To(matchers.MeetExpectations())
	})

	It("survives an hour", Label("survival"), func() {
		rep := arenatest.Survive(GinkgoT(), engine.SurvivalConfig{Duration: time.Hour, Seed: 7})
		Expect(rep).To(matchers.SurviveWithGrade("B"))
	})

	It("compares strategies", Label("ab"), func() {
		var res *regression.Result
		Expect(retries).To(matchers.SignificantlyBetterThan(noRetries, matchers.WithSeed(1), matchers.SaveResult(&res)))
		arenaginkgo.AddReportEntries(res)
	})

	// Run by TestReportFiles only: a failing run, to see its message in
	// the reports.
	It("fails without healing", Label("failing"), func() {
		if os.Getenv("ARENAGINKGO_FAILING_SPEC") == "" {
			Skip("run by TestReportFiles")
		}
		arenatest.Run(GinkgoT(), "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()))
	})
})

// Run by TestReportFiles and TestGinkgoCLIReports: a JUnit file with arena's
// properties as plain text.
var _ = ReportAfterSuite("plain JUnit", func(r Report) {
	if dst := os.Getenv("ARENAGINKGO_PLAIN_JUNIT"); dst != "" {
		Expect(arenaginkgo.GenerateJUnitReport(r, dst)).To(Succeed())
	}
})

// The suite reads its own arena figures back at its end with Results, as a
// suite that prints or gates on its specs' scores would: the A/B spec's
// entries (AddReportEntries) and the scenario spec's (arenatest's own) are
// in the suite's report.
var _ = ReportAfterSuite("arena results", func(r Report) {
	got := map[string]arenaginkgo.SpecResult{}
	for _, res := range arenaginkgo.Results(r) {
		got[res.Spec] = res
	}
	ab := got["arena under Ginkgo compares strategies"]
	Expect(ab.Entries).To(HaveKeyWithValue("arena.verdict", "better"), "the A/B spec's entries in %v", got)
	Expect(ab.Entries).To(HaveKeyWithValue("arena.seed", "1"))
	Expect(ab.Labels).To(Equal([]string{"chaos", "ab"}))
	Expect(got["arena under Ginkgo runs a scenario"].Entries).To(HaveKeyWithValue("arena.grade", "A+"), "the scenario spec's entries in %v", got)
})
