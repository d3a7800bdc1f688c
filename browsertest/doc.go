// Package browsertest checks arena's dashboard in a real browser: headless
// Chromium driven from Go over the DevTools protocol (chromedp) against a
// real `arena serve` process, built from this checkout.
//
// It is a module of its own so that chromedp and its protocol bindings stay
// out of arena's go.mod: they are test tooling that no user of arena needs
// in their module graph (DESIGN §13). `make test` runs it (`make browser`).
// Without Chromium the tests skip, saying what went unchecked; under
// ARENA_REQUIRE_BROWSER=1 (CI) they fail instead. A screenshot of the page
// in the middle of a run is written to ARENA_REPORT_DIR (or the test's temp
// directory) as dashboard-midrun.png.
package browsertest
