package arenahttp

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
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

// dashboard serves GET /arena/ui/{asset...}: the page's files.
func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("asset")
	if name == "" {
		name = "index.html"
	}
	b, err := fs.ReadFile(uiFiles, "ui/"+name)
	ctype, known := uiTypes[path.Ext(name)]
	if err != nil || !known {
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
	_, _ = w.Write(b)
}
