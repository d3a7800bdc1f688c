package agents

import (
	"context"
	"fmt"
	"github.com/ares-arena/arena/fault"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// MaxModelCalls bounds the model calls of one attempt of a user at a task:
// the correct worker makes at most 2 turns × ModelAttempts × 3 (the SDK's
// tries), and the orchestrator tries up to 3 workers (36); a retry storm
// makes hundreds.
const MaxModelCalls = 36

// modelCalls counts the requests each attempt at a task sends for its
// model calls (their X-Task header: task#attempt), the SDK's retries
// included, above the faults: a request a fault answers is counted too.
type modelCalls struct {
	mu sync.Mutex
	n  map[string]int
}

// counting is base with m counting its requests.
func (m *modelCalls) counting(base http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if task := r.Header.Get("X-Task"); task != "" {
			m.mu.Lock()
			m.n[task]++
			m.mu.Unlock()
		}
		return base.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// of returns the model calls of a task's attempts 1 to attempts: their sum
// and the most one made.
func (m *modelCalls) of(task string, attempts int) (sum, most int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for a := 1; a <= attempts; a++ {
		n := m.n[fmt.Sprintf("%s#%d", task, a)]
		sum, most = sum+n, max(most, n)
	}
	return sum, most
}

// checker holds the checks' cursors: each check reads only the tasks
// finished, and the effects applied, since it last ran.
type checker struct {
	s *System

	mu                  sync.Mutex
	lost, done, calls   *cursor
	payFrom, ticketFrom int
	paid, opened        map[string]int // effects per task
}

// Checks are the agent system's checks, from what the users saw, what the
// tools did (the store) and the model calls counted. Each reads what is
// new since it last ran.
func (s *System) Checks() []fault.Check {
	c := &checker{s: s, paid: map[string]int{}, opened: map[string]int{}, lost: newCursor(), done: newCursor(), calls: newCursor()}
	return []fault.Check{
		{Name: "no task lost", Run: c.noTaskLost},
		{Name: "tool effects at most once", Run: c.atMostOnce},
		{Name: "no result a tool never gave", Run: c.noFabrication},
		{Name: fmt.Sprintf("at most %d model calls per task", MaxModelCalls), Run: c.boundedModelCalls},
	}
}

// checkNoTaskLost: every task ended with an answer, done or failed.
func (c *checker) noTaskLost(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tasks := c.s.users.finished(c.lost)
	var lost []string
	for _, t := range tasks {
		if t.Outcome == "lost" {
			lost = append(lost, fmt.Sprintf("%s (%d attempts, none answered)", t.ID, t.Attempts))
		}
	}
	return violations("tasks lost", lost)
}

// atMostOnce: no task paid or opened a ticket twice.
func (c *checker) atMostOnce(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var twice []string
	pays := c.s.Store.Payments()
	for _, p := range pays[c.payFrom:] {
		if c.paid[p.Task]++; c.paid[p.Task] == 2 {
			twice = append(twice, fmt.Sprintf("%s paid %d to %s twice", p.Task, p.Amount, p.Account))
		}
	}
	c.payFrom = len(pays)
	tickets := c.s.Store.Tickets()
	for _, t := range tickets[c.ticketFrom:] {
		if c.opened[t.Task]++; c.opened[t.Task] == 2 {
			twice = append(twice, fmt.Sprintf("%s opened ticket %q twice", t.Task, t.Title))
		}
	}
	c.ticketFrom = len(tickets)
	return violations("tool effects applied more than once", twice)
}

// noFabrication: every task answered done carries what its tool did, as
// the store recorded it.
func (c *checker) noFabrication(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tasks := c.s.users.finished(c.done)
	var wrong []string
	for _, t := range tasks {
		if t.Outcome != "done" {
			continue
		}
		if why := c.s.fabricated(t); why != "" {
			wrong = append(wrong, t.ID+": "+why)
		}
	}
	return violations("tasks done on a result no tool gave", wrong)
}

// boundedModelCalls: no attempt at a task made more than MaxModelCalls
// model calls.
func (c *checker) boundedModelCalls(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tasks := c.s.users.finished(c.calls)
	var over []string
	for _, t := range tasks {
		if _, most := c.s.calls.of(t.ID, t.Attempts); most > MaxModelCalls {
			over = append(over, fmt.Sprintf("%s made %d model calls in one attempt", t.ID, most))
		}
	}
	return violations(fmt.Sprintf("tasks over %d model calls", MaxModelCalls), over)
}

// fabricated says what is wrong with a done task's result, or "".
func (s *System) fabricated(t Task) string {
	r := t.Result
	switch t.Kind {
	case "pay":
		if r.Payment == nil {
			return "done without a receipt"
		}
		p, ok := s.Store.receipt(r.Payment.Receipt)
		switch {
		case !ok:
			return fmt.Sprintf("receipt %q is not in the ledger", r.Payment.Receipt)
		case p.Task != t.ID || p.Account != t.Account || p.Amount != t.Amount || p.Balance != r.Payment.Balance:
			return fmt.Sprintf("answered %+v, the ledger has %+v", *r.Payment, p)
		}
		return ""
	case "ticket":
		if r.Ticket == nil {
			return "done without a ticket"
		}
		k, ok := s.Store.ticket(r.Ticket.Ticket)
		switch {
		case !ok:
			return fmt.Sprintf("ticket %q is not in the store", r.Ticket.Ticket)
		case k.Task != t.ID || k.Title != t.Title || k.Title != r.Ticket.Title:
			return fmt.Sprintf("answered %+v, the store has %+v", *r.Ticket, k)
		}
		return ""
	}
	return ""
}

// violations is nil for none, else an error naming the first few.
func violations(what string, items []string) error {
	if len(items) == 0 {
		return nil
	}
	sort.Strings(items)
	shown := items
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if len(items) > 3 {
		more = fmt.Sprintf(" and %d more", len(items)-3)
	}
	return fmt.Errorf("%d %s: %s%s", len(items), what, strings.Join(shown, "; "), more)
}
