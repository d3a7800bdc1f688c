package arenahttp

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// authorized checks the API key when one is set, or else a browser's
// session cookie, and answers 401 when they are missing or wrong, 429 when
// the client's address has presented too many wrong keys (guesses.go).
// Both keys are hashed first, so the comparison takes the same time
// whatever the given key's length and content.
func (h *Handler) authorized(w http.ResponseWriter, r *http.Request) bool {
	want := h.key.Load()
	if want == nil {
		return true
	}
	given, ok := apiKey(r)
	if ok {
		valid := validKey(given, want)
		if h.tooMany(w, r, h.guesses.guess(clientAddr(r), valid)) {
			return false
		}
		if valid {
			return true
		}
	}
	if !ok { // a browser's session (session.go)
		if handled, pass := h.sessionAuth(w, r); handled {
			return pass
		}
	}
	// Answer without reading the body, and close rather than drain it.
	closeIfBody(w, r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="arena"`)
		writeError(w, http.StatusUnauthorized, "", "missing API key (send X-API-Key or Authorization: Bearer)")
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="arena", error="invalid_token"`)
	writeError(w, http.StatusUnauthorized, "", "invalid API key")
	return false
}

// apiKey returns the key of X-API-Key, else of an Authorization header with
// the Bearer scheme (case-insensitive, as RFC 9110 says of schemes).
func apiKey(r *http.Request) (string, bool) {
	if k := r.Header.Get("X-API-Key"); k != "" {
		return k, true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != "" {
		return strings.TrimSpace(token), true
	}
	return "", false
}

func validKey(given string, want *[sha256.Size]byte) bool {
	sum := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}
