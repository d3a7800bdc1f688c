package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	browser "github.com/ares-arena/arena/internal/chromium"
)

// chromium finds a headless-capable Chromium. Without one the test skips,
// unless ARENA_REQUIRE_BROWSER=1 (CI sets it), where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	return browser.Need(t, "the HTML report was not checked in a browser")
}

// probeScript is appended to the page under test only: it measures what
// the browser drew and writes it into the DOM for --dump-dom to show.
const probeScript = `<script>
(function () {
  var out = {};
  var svg = document.querySelector("#timeline svg");
  out.svg = !!svg;
  if (svg) {
    var box = svg.getBoundingClientRect();
    out.width = box.width; out.height = box.height;
    out.namespace = svg.namespaceURI;
    var paths = svg.querySelectorAll("path");
    out.paths = paths.length; out.drawn = 0; out.length = 0;
    paths.forEach(function (p) {
      var b = p.getBBox(), l = p.getTotalLength();
      if (l > 0 && (b.width > 0 || b.height > 0)) { out.drawn++; }
      out.length += l;
    });
    out.texts = Array.prototype.map.call(svg.querySelectorAll("text"), function (t) { return t.textContent; });
    out.healthLine = Array.prototype.some.call(paths, function (p) {
      return getComputedStyle(p).stroke === "rgb(31, 122, 69)" && p.getTotalLength() > 100;
    });
  }
  out.score = document.getElementById("score").textContent;
  out.grade = document.getElementById("grade").textContent;
  out.faultRows = document.querySelectorAll("#faults tr").length - 1;
  out.resources = performance.getEntriesByType("resource").length;
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type probe struct {
	SVG        bool     `json:"svg"`
	Width      float64  `json:"width"`
	Height     float64  `json:"height"`
	Namespace  string   `json:"namespace"`
	Paths      int      `json:"paths"`
	Drawn      int      `json:"drawn"`
	Length     float64  `json:"length"`
	Texts      []string `json:"texts"`
	HealthLine bool     `json:"healthLine"`
	Score      string   `json:"score"`
	Grade      string   `json:"grade"`
	FaultRows  int      `json:"faultRows"`
	Resources  int      `json:"resources"`
}

// recorder is the HTTP proxy Chromium is told to send everything through
// (loopback included), so that nothing the browser does leaves the
// machine: it serves the page and refuses the rest, recording each request.
type recorder struct {
	page []byte
	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	line     string // method and request URI
	fromPage bool   // it carries a Referer or Sec-Fetch-Site: the page asked for it
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	rc.seen = append(rc.seen, seenRequest{r.Method + " " + r.RequestURI, r.Referer() != "" || r.Header.Get("Sec-Fetch-Site") != ""})
	rc.mu.Unlock()
	if r.Method == http.MethodGet && r.URL.Path == "/report.html" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(rc.page)
		return
	}
	http.Error(w, "nothing but the report is served here", http.StatusForbidden)
}

func (rc *recorder) requests() []seenRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]seenRequest(nil), rc.seen...)
}

// rendering is what one page load in Chromium showed.
type rendering struct {
	url      string        // where the page was served
	dom      string        // the DOM after load and scripts (--dump-dom)
	fromPage []string      // URLs the page requested, by the browser's own log
	proxied  []seenRequest // everything that reached the proxy
}

// render loads page in headless Chromium. Which requests the page itself
// made comes from Chromium's NetLog: a request the page starts has the
// page's origin as its initiator, while the browser's own traffic (update
// checks, network time, the navigation itself) has none. The proxy sees
// every request too, but cannot tell who made one tunnelled to https.
func render(t *testing.T, bin string, page []byte) rendering {
	t.Helper()
	rc := &recorder{page: page}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	r := rendering{url: srv.URL + "/report.html"}

	dir := t.TempDir()
	netlog := filepath.Join(dir, "netlog.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(browser.Flags(filepath.Join(dir, "profile")),
		"--window-size=1200,1600",
		"--proxy-server="+srv.URL, "--proxy-bypass-list=<-loopback>",
		"--log-net-log="+netlog, "--net-log-capture-mode=Default",
		"--dump-dom", r.url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, tail(stderr.String(), 2000))
	}
	r.dom = stdout.String()
	r.proxied = rc.requests()

	b, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("NetLog: %v", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("NetLog: %v", err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("NetLog has no URL_REQUEST_START_JOB events")
	}
	origin, sawPage := srv.URL, false
	for _, e := range log.Events {
		if e.Type != start || e.Params.URL == "" {
			continue
		}
		sawPage = sawPage || e.Params.URL == r.url
		if e.Params.Initiator == origin {
			r.fromPage = append(r.fromPage, e.Params.URL)
		}
	}
	if !sawPage {
		t.Fatalf("the NetLog does not show the page's own load (%s): it cannot be trusted", r.url)
	}
	return r
}

// pageRequests lists what the page asked for: by the NetLog, and what the
// proxy saw with a referrer (besides the page itself).
func (r rendering) pageRequests() []string {
	reqs := append([]string(nil), r.fromPage...)
	for _, s := range r.proxied {
		if s.fromPage && s.line != "GET "+r.url {
			reqs = append(reqs, s.line)
		}
	}
	return reqs
}

// TestReportInChromium renders a scenario report in headless Chromium and
// checks that the chart is an SVG with drawn paths (measured by the
// browser), that the score is shown, and that the page made no request
// beyond itself.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	rep := scenarioReport(t, "everything-at-once", 7)
	var buf bytes.Buffer
	if err := WriteScenario(&buf, rep); err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(buf.String(), "</body>", probeScript+"\n</body>", 1)
	r := render(t, bin, []byte(page))

	m := regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`).FindStringSubmatch(r.dom)
	if m == nil {
		t.Fatalf("the probe did not run; DOM:\n%s", tail(r.dom, 2000))
	}
	var got probe
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("probe %q: %v", m[1], err)
	}
	t.Logf("browser measured: %+v", got)

	if !got.SVG || got.Namespace != "http://www.w3.org/2000/svg" {
		t.Errorf("chart: svg %v in namespace %q, want an SVG element", got.SVG, got.Namespace)
	}
	if got.Width < 600 || got.Height < 150 {
		t.Errorf("chart laid out at %.0f×%.0f px, want it about the page's width", got.Width, got.Height)
	}
	if got.Drawn < 10 || got.Length < 1000 || !got.HealthLine {
		t.Errorf("chart: %d of %d paths drawn, total length %.0f, health line %v; want axes, grid, the health line and fault markers",
			got.Drawn, got.Paths, got.Length, got.HealthLine)
	}
	for _, want := range []string{"healthy", "unhealthy", "time since start (s)"} {
		if !contains(got.Texts, want) {
			t.Errorf("chart texts %q lack %q", got.Texts, want)
		}
	}
	if wantScore := fmt.Sprintf("%.1f", rep.Score.Total); got.Score != wantScore || got.Grade != string(rep.Score.Grade) {
		t.Errorf("page shows %s %s, want %s %s", got.Score, got.Grade, wantScore, rep.Score.Grade)
	}
	if got.FaultRows != len(rep.Faults) {
		t.Errorf("faults table has %d rows, want %d", got.FaultRows, len(rep.Faults))
	}
	if got.Resources != 0 {
		t.Errorf("the page loaded %d resources, want none", got.Resources)
	}
	if reqs := r.pageRequests(); len(reqs) != 0 {
		t.Errorf("the page made requests: %q", reqs)
	}
}

// TestChromiumSeesPageRequests is the control of TestReportInChromium: the
// same harness, on a page that does fetch things, must see each fetch.
func TestChromiumSeesPageRequests(t *testing.T) {
	bin := chromium(t)
	page := `<!doctype html><html><head><link rel="icon" href="data:,">
<link rel="stylesheet" href="https://cdn.example.invalid/style.css"></head>
<body><img src="http://img.example.invalid/a.png"><img src="/relative.png"></body></html>`
	r := render(t, bin, []byte(page))
	reqs := strings.Join(r.pageRequests(), "\n")
	for _, want := range []string{"https://cdn.example.invalid/style.css", "http://img.example.invalid/a.png", "/relative.png"} {
		if !strings.Contains(reqs, want) {
			t.Errorf("the harness missed the page's request for %s; it saw:\n%s", want, reqs)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
