package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildArena builds the arena command of this checkout (the module above
// this one) into a temporary directory.
func buildArena(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build arena with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "arena")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/arena")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/arena: %v\n%s", err, out)
	}
	return bin
}

// server is a real `arena serve` process.
type server struct {
	url, dashboard string
	key            string
	cmd            *exec.Cmd
	done           chan struct{}
	mu             sync.Mutex
	out            bytes.Buffer // stdout and stderr
}

// startServe runs `arena serve` on a free loopback port with key in
// ARENA_API_KEY, and reads the URLs it prints.
func startServe(t *testing.T, bin, key string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "ARENA_API_KEY="+key)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{key: key, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &lockedWriter{mu: &s.mu, w: &s.out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 2)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.mu.Lock()
			s.out.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			select {
			case lines <- sc.Text():
			default:
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() { s.stop(t) })
	serving := regexp.MustCompile(`^arena: serving on (http://\S+) `)
	dashboard := regexp.MustCompile(`^arena: dashboard: (http://\S+)$`)
	deadline := time.After(30 * time.Second)
	for s.url == "" || s.dashboard == "" {
		select {
		case line := <-lines:
			if m := serving.FindStringSubmatch(line); m != nil {
				s.url = m[1]
			}
			if m := dashboard.FindStringSubmatch(line); m != nil {
				s.dashboard = m[1]
			}
		case <-s.done:
			t.Fatalf("arena serve exited: %s", s.output())
		case <-deadline:
			t.Fatalf("arena serve printed no URLs within 30s: %s", s.output())
		}
	}
	return s
}

// stop ends the server with SIGTERM, as an operator would.
func (s *server) stop(t *testing.T) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		t.Errorf("arena serve did not end within 30s of SIGTERM")
	}
}

func (s *server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// api calls the server as a program does, with the key in a header.
func (s *server) api(t *testing.T, method, path, body string) (int, []byte) {
	t.Helper()
	return s.call(t, method, path, body, map[string]string{"X-API-Key": s.key})
}

func (s *server) call(t *testing.T, method, path, body string, header map[string]string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
