// Package devstack runs private copies of the services recruitd needs (a Postgres cluster and the
// Temporal dev server) as child processes, for `recruitd dev` and the test harnesses.
//
// Every service runs in its own process group, so a Ctrl-C in the terminal reaches recruitd only
// and recruitd decides the shutdown order, and gets a parent-death signal, so it does not outlive
// recruitd even when recruitd is killed with SIGKILL.
package devstack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// child is a service process started in its own process group.
type child struct {
	cmd  *exec.Cmd
	pid  int
	done chan struct{} // closed once the process has exited and been reaped
	err  error         // Wait's result, set before done is closed
}

// stopStep sends sig (to the whole process group when group is set) and gives the process wait to
// exit before the next step.
type stopStep struct {
	sig   syscall.Signal
	group bool
	wait  time.Duration
}

// startChild starts cmd in a new process group with deathSig as its parent-death signal.
//
// The kernel sends the parent-death signal when the thread that forked the child exits, not the
// process, so the child is started from a locked OS thread that stays blocked in Wait for as long
// as the child runs.
func startChild(cmd *exec.Cmd, deathSig syscall.Signal) (*child, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = deathSig
	c := &child{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		c.pid = cmd.Process.Pid
		started <- nil
		c.err = cmd.Wait()
		close(c.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop runs the steps until the process has exited, then kills whatever is left of its process
// group. A cancelled ctx skips the remaining gentle steps.
func (c *child) stop(ctx context.Context, steps []stopStep) error {
	defer c.killGroup()
	for _, s := range steps {
		if c.exited() {
			return nil
		}
		target := c.pid
		if s.group {
			target = -c.pid
		}
		if err := syscall.Kill(target, s.sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signal pid %d: %w", c.pid, err)
		}
		t := time.NewTimer(s.wait)
		select {
		case <-c.done:
			t.Stop()
			return nil
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		if ctx.Err() != nil {
			break
		}
	}
	c.killGroup()
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("pid %d survived SIGKILL", c.pid)
	}
}

// killGroup sends SIGKILL to the process group, so no grandchild survives its leader.
func (c *child) killGroup() {
	_ = syscall.Kill(-c.pid, syscall.SIGKILL)
}

// tailBuffer keeps the first headMax and the last max bytes written to it; it backs the "log
// tail" of startup errors. The head is kept because a Go server that crashes at start prints
// its panic's message first and then every goroutine's stack, which pushes the message out of
// the tail.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	head    []byte
	buf     []byte
	written int
}

// headMax is how much of the output's start a tailBuffer keeps.
const headMax = 4 << 10

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := min(len(p), headMax-len(b.head)); n > 0 {
		b.head = append(b.head, p[:n]...)
	}
	b.written += len(p)
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// String is the output's last 20 lines, after its first 10 when those are not among them.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := lastLinesStart(b.buf, 20)
	tail := strings.TrimRight(string(b.buf[i:]), "\n")
	start := b.written - len(b.buf) + i // where the tail begins in the whole output
	if start == 0 {
		return tail
	}
	head := b.head[:min(len(b.head), start)]
	if j := nthLineEnd(head, 10); j < len(head) {
		head = head[:j]
	}
	gap := "\n"
	if len(head) < start {
		gap = "\n…\n"
	}
	return strings.TrimRight(string(head), "\n") + gap + tail
}

// fileTail returns the last lines of the file at path, or "" when it cannot be read.
func fileTail(path string, lines int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 8 << 10
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-window, 0)
	buf := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(buf, off)
	return lastLines(buf[:n], lines)
}

func lastLines(b []byte, n int) string {
	return strings.TrimRight(string(b[lastLinesStart(b, n):]), "\n")
}

// lastLinesStart is the index in b where its last n lines begin (trailing newlines aside).
func lastLinesStart(b []byte, n int) int {
	t := bytes.TrimRight(b, "\n")
	for i, cut := len(t)-1, 0; i >= 0; i-- {
		if t[i] == '\n' {
			cut++
			if cut == n {
				return i + 1
			}
		}
	}
	return 0
}

// nthLineEnd is the index in b just past its n-th line's newline, len(b) when it has fewer.
func nthLineEnd(b []byte, n int) int {
	for i := range b {
		if b[i] == '\n' {
			if n--; n == 0 {
				return i + 1
			}
		}
	}
	return len(b)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago, held back from the
// kernel's own choices for a minute: it leaves a connection to the port in TIME_WAIT, closed on
// the listener's side, so neither another bind to port 0 nor an outgoing connection is given the
// port meanwhile, while a server (Go and Postgres set SO_REUSEADDR) can still bind it. The
// Temporal CLI chooses its own ports this way; without it, a port we chose could be the one its
// dev server, starting beside ours, had just chosen.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	c, err := net.DialTimeout("tcp", l.Addr().String(), time.Second)
	if err != nil {
		return port, nil // free, only not held back
	}
	defer c.Close()
	if s, err := l.Accept(); err == nil {
		s.Close() // first, so that the TIME_WAIT is the listener's port
	}
	return port, nil
}

// ScratchDir creates a new folder for throwaway service data, named like os.MkdirTemp does, on
// /dev/shm when that is a writable tmpfs (there CREATE DATABASE takes about 10 ms instead of
// 300 ms on this kind of machine's disk, fsync off or not), else under os.TempDir(). The folder
// is searchable by others, so that a cluster run as user postgres can live in it when we are root.
func ScratchDir(pattern string) (string, error) {
	parent := os.TempDir()
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) == nil && st.Type == unix.TMPFS_MAGIC && unix.Access("/dev/shm", unix.W_OK) == nil {
		parent = "/dev/shm"
	}
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return "", fmt.Errorf("create scratch folder: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", fmt.Errorf("create scratch folder: %w", err)
	}
	return dir, nil
}

// ScratchParents are the folders ScratchDir may create folders in.
func ScratchParents() []string {
	return []string{"/dev/shm", os.TempDir()}
}

// ModulePath is the module whose go.mod marks the repository root.
const ModulePath = "github.com/recruitd/recruitd"

// RepoRoot walks up from the working directory to the folder whose go.mod declares ModulePath.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && moduleOf(b) == ModulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find repository root: no go.mod of module %s above the working directory", ModulePath)
		}
		dir = parent
	}
}

func moduleOf(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// alive reports whether a process with this pid exists (zombies included).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
