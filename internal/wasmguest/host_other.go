//go:build !wasip1

package wasmguest

// Seed is a no-op outside the host.
func Seed(uint64) bool { return false }

// Child is an instance the host runs beside this one.
type Child struct{}

// Spawn needs the host.
func Spawn(string, uint64, string) (Child, error) { return Child{}, ErrNoHost }

// Wait needs the host.
func (Child) Wait() (Outcome, error) { return Outcome{}, ErrNoHost }

// Hand is a no-op outside the host.
func Hand([]byte) {}
