package downstream_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/stretchr/testify/require"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
)

// The three usage snippets of the README (plain go test, Ginkgo, A/B), as
// a project outside arena writes them.

// plain go test + testify
func TestLeaderFailover(t *testing.T) {
	rep := arenatest.Run(t, "leader-failover") // built-in scenario, fresh fake cluster
	require.True(t, rep.Score.Grade.AtLeast(arena.GradeB))
}

func TestDesign(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "README snippets")
}

var (
	retryWithBackoff = fakes.Strategy{Name: "retries with backoff", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetry          = fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
)

var _ = Describe("README snippets", func() {
	// Ginkgo + Gomega
	It("survives a day of chaos", func() {
		rep := arenatest.Survive(GinkgoT(), arena.SurvivalConfig{Duration: 24 * time.Hour, Seed: 7},
			arenatest.Virtual()) // 24 h of virtual time, seconds of CPU
		Expect(rep).To(matchers.SurviveWithGrade("B"))
	})

	It("compares two recovery strategies", func() {
		// A/B of two recovery strategies
		Expect(retryWithBackoff).To(matchers.SignificantlyBetterThan(noRetry))
	})
})
