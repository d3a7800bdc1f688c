package arenahttp

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
)

// RecoverMiddleware turns a panic in next into a 500 JSON error (when no
// response has been started yet) and logs it with its stack on
// slog.Default(); the server keeps serving. http.ErrAbortHandler is passed
// on, as net/http expects. The routes of a Handler already carry it (with
// the handler's logger); use it for your own routes beside them.
func RecoverMiddleware(next http.Handler) http.Handler {
	return recoverMiddleware(slog.Default(), next)
}

func recoverMiddleware(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			log.Error("arenahttp: handler panicked", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if !tw.started {
				writeError(w, http.StatusInternalServerError, "", "internal error")
			}
		}()
		next.ServeHTTP(tw, r)
	})
}

// trackingWriter records whether the response has started, so that a panic
// after it does not write a second header. Unwrap lets
// http.ResponseController reach the connection beneath (flush, deadlines).
type trackingWriter struct {
	http.ResponseWriter
	started bool
}

func (t *trackingWriter) WriteHeader(code int) {
	if code >= 200 { // 1xx responses are informational; the real one follows
		t.started = true
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackingWriter) Write(b []byte) (int, error) {
	t.started = true
	return t.ResponseWriter.Write(b)
}

func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
