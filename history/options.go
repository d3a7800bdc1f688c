package history

import (
	"fmt"
	"os"
	"time"

	"github.com/ares-arena/arena/fault"
)

// DefaultBudget is how long a linearizability check may run when WithBudget
// does not say: past it the check is undecided.
const DefaultBudget = 10 * time.Second

// DefaultMemoryBudget is how much memory a linearizability check may hold
// when WithMemoryBudget does not say: 256 MiB. Past it the check is
// undecided.
const DefaultMemoryBudget = 256 << 20

// CheckOption configures a check.
type CheckOption interface{ applyCheck(*checkOptions) }

type checkOptions struct {
	budget    time.Duration
	memory    int64         // bytes
	reportDir *string       // nil: $ARENA_REPORT_DIR
	horizon   time.Duration // WithUnknownHorizon; 0: none
}

func defaultCheckOptions(opts []CheckOption) checkOptions {
	o := checkOptions{budget: DefaultBudget, memory: DefaultMemoryBudget}
	for _, opt := range opts {
		opt.applyCheck(&o)
	}
	return o
}

// dir is where visualizations go: WithReportDir, else $ARENA_REPORT_DIR,
// else nowhere ("").
func (o checkOptions) dir() string {
	if o.reportDir != nil {
		return *o.reportDir
	}
	return os.Getenv(fault.ReportDirEnv)
}

type budgetOption time.Duration

func (b budgetOption) applyCheck(o *checkOptions) { o.budget = time.Duration(b) }

// WithBudget bounds the wall time of one run of a linearizability check
// (DefaultBudget when not given). A check that has not decided by then
// stops and is undecided: neither passed nor failed, with how far it got.
// The budget holds inside a testing/synctest bubble too: it is read from
// the system's wall clock, not the bubble's. d must be positive.
func WithBudget(d time.Duration) CheckOption {
	if d <= 0 {
		panic(fmt.Sprintf("arena: history.WithBudget(%s): the budget must be positive", d))
	}
	return budgetOption(d)
}

type memoryBudgetOption int64

func (b memoryBudgetOption) applyCheck(o *checkOptions) { o.memory = int64(b) }

// WithMemoryBudget bounds the memory one run of a linearizability check
// holds, in bytes (DefaultMemoryBudget when not given), as WithBudget
// bounds its time: a check that would pass it stops and is undecided,
// saying that the memory budget ran out and how far it got.
//
// What is counted: the check's snapshot of the history; for each part it
// searches at once, porcupine's records of its operations and, for every
// state porcupine keeps, a bitset of one bit per operation of the part
// beside the state and its bookkeeping (13.9 KiB a state for a part of
// 100,000 operations: a long part's search is quadratic in memory); when
// explaining a violation, porcupine's partial linearizations and its
// visualization. The sizes are estimates, read from porcupine's source
// (the visualization's measured). The Go heap may exceed the count by the
// collector's headroom until it collects what a search left behind: with
// GOGC=100, checks run back to back can take the heap to about twice the
// budget. bytes must be positive.
func WithMemoryBudget(bytes int64) CheckOption {
	if bytes <= 0 {
		panic(fmt.Sprintf("arena: history.WithMemoryBudget(%d): the budget must be positive", bytes))
	}
	return memoryBudgetOption(bytes)
}

type reportDirOption string

func (d reportDirOption) applyCheck(o *checkOptions) {
	s := string(d)
	o.reportDir = &s
}

// WithReportDir names the directory where a check writes porcupine's
// visualization of a violation (the default is $ARENA_REPORT_DIR; "" writes
// none). The file's path is in the violation (fault.Violation.Files), and
// so in the reports.
func WithReportDir(dir string) CheckOption { return reportDirOption(dir) }
