package fault_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

// reaching is a runtime of four workers of which the model faults reach
// only w1 and w2 (the others have no model client), and kills every one
// but the client c.
type reaching struct{ typedAgents }

func (reaching) InjectLLMFailure(context.Context, string, fault.LLMErrorType) (fault.Lift, error) {
	return func(context.Context) error { return nil }, nil
}

func (reaching) Reaches(t fault.Type, id string) bool {
	switch {
	case id == "c":
		return false
	case t == fault.LLMFailure:
		return id == "w1" || id == "w2"
	}
	return true
}

func newReaching() reaching {
	return reaching{typedAgents{{ID: "c", Type: "client"}, {ID: "w1", Type: "worker"}, {ID: "w2", Type: "worker"},
		{ID: "w3", Type: "worker"}, {ID: "w4", Type: "worker"}}}
}

// TestSelectorsPickReachedAgents: any, type:<t> and not:<t> pick among the
// agents the runtime reaches with the fault's type; an ID is not filtered.
func TestSelectorsPickReachedAgents(t *testing.T) {
	in := fault.NewInjectorFor(newReaching())
	picked := map[string]bool{}
	for seed := range uint64(64) {
		for _, sel := range []string{"any", "type:worker", "not:leader"} {
			a, _, err := in.Prepare(context.Background(), fault.Action{Type: fault.LLMFailure, TargetID: sel}, rand.New(rand.NewPCG(seed, 2)))
			if err != nil {
				t.Fatalf("%s: %v", sel, err)
			}
			picked[a.TargetID] = true
		}
	}
	if len(picked) != 2 || !picked["w1"] || !picked["w2"] {
		t.Errorf("llm_failure on selectors picked %v, want w1 and w2 only", picked)
	}
	if a, _, err := in.Prepare(context.Background(), fault.Action{Type: fault.LLMFailure, TargetID: "w4"}, nil); err != nil || a.TargetID != "w4" {
		t.Errorf("an ID: %v, %v; want it as given", a.TargetID, err)
	}
	_, _, err := in.Prepare(context.Background(), fault.Action{Type: fault.LLMFailure, TargetID: "type:client"}, nil)
	if !errors.Is(err, fault.ErrNoTarget) {
		t.Errorf("type:client, which nothing reaches: %v, want ErrNoTarget", err)
	}
}

// TestSurvivalHitsReachedAgents: survival draws its targets among the
// agents the runtime reaches with each type.
func TestSurvivalHitsReachedAgents(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	svc := engine.NewService(fault.NewInjectorFor(newReaching()), nil, nil, engine.WithClock(clk))
	rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 10 * time.Minute, Interval: 2 * time.Second, Seed: 5,
		MaxActiveFaults: 100, TimelineCap: 1000})
	if err != nil {
		t.Fatal(err)
	}
	hit := map[fault.Type][]string{}
	for _, e := range rep.Events {
		if !slices.Contains(hit[e.Type], e.TargetID) {
			hit[e.Type] = append(hit[e.Type], e.TargetID)
		}
	}
	for typ, ids := range hit {
		slices.Sort(ids)
		want := []string{"w1", "w2", "w3", "w4"}
		if typ == fault.LLMFailure {
			want = want[:2]
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s hit %v, want %v", typ, ids, want)
		}
	}
	if len(hit[fault.LLMFailure]) == 0 || len(hit) < 2 {
		t.Errorf("survival drew %v: want llm_failure and the kills", hit)
	}
}
