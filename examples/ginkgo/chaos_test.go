package ginkgoexample

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/ares-arena/arena/arenaginkgo"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
	"github.com/ares-arena/arena/regression"
)

var (
	retryWithBackoff = fakes.Strategy{Name: "retries with backoff", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetry          = fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
)

var _ = Describe("The fake cluster", Label("chaos"), func() {
	Context("under a built-in scenario", Label("scenario"), func() {
		DescribeTable("meets the scenario's expectations",
			func(name string) {
				rep := arenatest.Run(GinkgoT(), name)
				Expect(rep).To(matchers.MeetExpectations())
				Expect(rep).To(matchers.BeConsistent())
			},
			Entry(nil, "leader-failover"),
			Entry(nil, "network-split"),
			Entry(nil, "llm-brownout"),
			Entry(nil, "everything-at-once"),
		)

		It("recovers from a leader kill within two seconds", func() {
			rep := arenatest.Run(GinkgoT(), "leader-failover", arenatest.WithSeed(7))
			Expect(rep).To(matchers.RecoverWithin(2 * time.Second))
			Expect(rep).To(matchers.HaveScoreAtLeast(90))
		})
	})

	Context("in survival mode", Label("survival", "slow"), func() {
		// Ginkgo + Gomega
		It("survives a day of chaos", func() {
			rep := arenatest.Survive(GinkgoT(), engine.SurvivalConfig{Duration: 24 * time.Hour, Seed: 7},
				arenatest.Virtual()) // 24 h of virtual time, seconds of CPU
			Expect(rep).To(matchers.SurviveWithGrade("B"))
		})
	})

	Context("comparing recovery strategies", Label("ab"), func() {
		// A/B of two recovery strategies
		It("finds retries with backoff better than none", func() {
			Expect(retryWithBackoff).To(matchers.SignificantlyBetterThan(noRetry))
		})

		It("reports the A/B test", func() {
			var res *regression.Result
			Expect(retryWithBackoff).To(matchers.SignificantlyBetterThan(noRetry, matchers.WithSeed(1), matchers.SaveResult(&res)))
			arenaginkgo.AddReportEntries(res)
			AddReportEntry("A/B test", res.String())
		})
	})
})
