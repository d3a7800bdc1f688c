package arenahttp

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
)

// The dashboard: one page (ui/index.html with its script and style sheet),
// embedded in the binary, served at /arena/ui/ by every Handler (so a
// service that mounts the handler serves it too). It loads nothing from
// elsewhere and works offline; its Content-Security-Policy lets it reach
// its own origin only. The files are public, as a login page must be: they
// hold no data and no secret. The data comes from the API, with the key's
// session (session.go).

//go:embed ui
var uiFiles embed.FS

// DashboardPath is where the dashboard is served.
const DashboardPath = "/arena/ui/"

// dashboardCSP: scripts, styles and requests of this origin only, no
// inline script, no framing, no form posted anywhere.
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var uiTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// uiAssets is every file of the dashboard, read once: a request costs no
// copy of it (see dashboard).
var uiAssets = sync.OnceValue(func() map[string][]byte {
	m := map[string][]byte{}
	_ = fs.WalkDir(uiFiles, "ui", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			m[strings.TrimPrefix(name, "ui/")], _ = fs.ReadFile(uiFiles, name)
		}
		return nil
	})
	return m
})

// dashboard serves GET /arena/ui/{asset...}: the page's files. It is
// public: its answer is made under a slot of the public pool and written
// after (public.go), and the file's bytes are handed over, not copied.
func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("asset")
	if name == "" {
		name = "index.html"
	}
	b, ok := uiAssets()[name]
	ctype, known := uiTypes[path.Ext(name)]
	if !ok || !known {
		writeError(w, http.StatusNotFound, "", "no such file of the dashboard: "+quote(name))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Security-Policy", dashboardCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if a, ok := w.(*answer); ok {
		a.share(b)
		return
	}
	_, _ = w.Write(b)
}
