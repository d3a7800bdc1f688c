package history

import (
	"fmt"
	"os"
	"time"

	"github.com/ares-arena/arena"
)

// DefaultBudget is how long a linearizability check may run when WithBudget
// does not say: past it the check is undecided.
const DefaultBudget = 10 * time.Second

// CheckOption configures a check.
type CheckOption interface{ applyCheck(*checkOptions) }

type checkOptions struct {
	budget    time.Duration
	reportDir *string // nil: $ARENA_REPORT_DIR
}

func defaultCheckOptions(opts []CheckOption) checkOptions {
	o := checkOptions{budget: DefaultBudget}
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
	return os.Getenv(arena.ReportDirEnv)
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

type reportDirOption string

func (d reportDirOption) applyCheck(o *checkOptions) {
	s := string(d)
	o.reportDir = &s
}

// WithReportDir names the directory where a check writes porcupine's
// visualization of a violation (the default is $ARENA_REPORT_DIR; "" writes
// none). The file's path is in the violation (arena.Violation.Files), and
// so in the reports.
func WithReportDir(dir string) CheckOption { return reportDirOption(dir) }
