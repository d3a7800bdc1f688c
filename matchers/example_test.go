package matchers_test

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/gomega"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/matchers"
	"github.com/ares-arena/arena/regression"
)

// exampleGomega is Gomega with a fail handler that prints the message, for
// these examples; in a test it is Ginkgo's Fail, or NewWithT(t).
var exampleGomega = gomega.NewGomega(func(message string, _ ...int) { fmt.Println(message) })

// An hour of chaos against a cluster whose self-healing is off falls far
// short of grade B.
func ExampleSurviveWithGrade() {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(7), fakes.WithoutHealing())
	svc := engine.NewService(fault.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(cluster.Probe), engine.WithChecks(cluster.Checks()...))
	rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Hour, Seed: 7, Mix: pinnedMix})
	if err != nil {
		fmt.Println(err)
		return
	}
	exampleGomega.Expect(rep).To(matchers.SurviveWithGrade("B"))
	// Output:
	// Expected
	//     <string>: survival run (seed 7): grade F, score 31.2
	// to survive with grade at least
	//     <engine.Grade>: B
}

// Two strategies of the fake cluster, run in pairs until the sequential
// test is sure: retries beat no retries.
func ExampleSignificantlyBetterThan() {
	retries := fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetries := fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
	var res *regression.Result
	exampleGomega.Expect(retries).To(matchers.SignificantlyBetterThan(noRetries, matchers.WithSeed(1), matchers.SaveResult(&res)))
	exampleGomega.Expect(noRetries).To(matchers.SignificantlyBetterThan(retries, matchers.WithSeed(1)))
	fmt.Println(res)
	// Output:
	// Expected
	//     <string>: "no retries": mean 92.3, sd 0.7 over 4 runs
	// to be significantly better than
	//     <string>: "retries": mean 97.9, sd 0.1 over 4 runs
	// but the A/B test says worse: p=0.015 n=4+4 Δ=-5.7 g=-10.16 [-15.33, -4.99] (seed 1: replay it with -arena.seed=1)
	// better: p=0.015 n=4+4 Δ=+5.7 g=10.16 [4.99, 15.33]
}
