package devstack

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"golang.org/x/sys/unix"
)

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

func startPostgres(t *testing.T, dir string) *Postgres {
	t.Helper()
	pg, err := StartPostgres(t.Context(), PostgresOptions{Dir: dir, Fast: true, Log: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

// assertGone fails unless pid is gone (ESRCH) and no member of its process group is running.
func assertGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		left := livingInGroup(pid)
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) && len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: pid %d still running (kill 0: %v); process group members alive: %v", what, pid, syscall.Kill(pid, 0), left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// livingInGroup lists the processes of process group pgid that are not zombies.
func livingInGroup(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces, so cut at the last ')'.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) >= 3 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// removeRelocated deletes the /var/tmp cluster a root run leaves behind Dir/data.
func removeRelocated(t *testing.T, dir string) {
	t.Cleanup(func() {
		if target, err := os.Readlink(filepath.Join(dir, "data")); err == nil && strings.HasPrefix(target, "/var/tmp/recruitd-pg-") {
			os.RemoveAll(filepath.Dir(target))
		}
	})
}

func TestPostgresStartStopRestart(t *testing.T) {
	dir := t.TempDir()
	removeRelocated(t, dir)
	ctx := t.Context()

	pg := startPostgres(t, dir)
	if _, err := StartPostgres(ctx, PostgresOptions{Dir: dir, Fast: true}); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("pid %d", pg.PID())) {
		t.Errorf("second StartPostgres on a running cluster: err = %v, want one naming pid %d", err, pg.PID())
	}
	if err := pg.EnsureDatabase(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if err := pg.EnsureDatabase(ctx, "app"); err != nil {
		t.Fatalf("EnsureDatabase on an existing database: %v", err)
	}
	conn, err := pgx.Connect(ctx, pg.URL("app"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before restart')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	pid := pg.PID()
	if err := pg.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pg.Stop(ctx); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(%d, 0) after Stop = %v, want ESRCH", pid, err)
	}
	assertGone(t, "postgres after Stop", pid)

	pg = startPostgres(t, dir)
	t.Cleanup(func() { pg.Destroy(context.Background()) })
	conn, err = pgx.Connect(ctx, pg.URL("app"))
	if err != nil {
		t.Fatal(err)
	}
	var v string
	if err := conn.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "before restart" {
		t.Errorf("SELECT v FROM kept after restart = %q, %v; want %q", v, err, "before restart")
	}
	conn.Close(ctx)
	pid = pg.PID()
	if err := pg.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(%d, 0) after second Stop = %v, want ESRCH", pid, err)
	}
	assertGone(t, "postgres after second Stop", pid)
}

func TestPostgresLongDirUsesShortSocketFolder(t *testing.T) {
	// Searchable folders, so that even as root the cluster stays in place and the socket folder
	// would be dir/run, too long for a unix socket path.
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(base, strings.Repeat("long-folder-name-", 6))
	removeRelocated(t, dir)
	pg := startPostgres(t, dir)
	defer pg.Destroy(context.Background())
	if len(pg.runDir) > maxSocketDir {
		t.Errorf("socket folder %s is %d bytes, want at most %d", pg.runDir, len(pg.runDir), maxSocketDir)
	}
	if pg.DataDir() != filepath.Join(dir, "data") {
		t.Errorf("DataDir() = %s, want %s (no relocation for a searchable folder)", pg.DataDir(), filepath.Join(dir, "data"))
	}
	sock := filepath.Join(pg.runDir, fmt.Sprintf(".s.PGSQL.%d", pg.Port()))
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("unix socket: %v", err)
	}
	runDir := pg.runDir
	if err := pg.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(runDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("short socket folder %s after Stop: %v, want it removed", runDir, err)
	}
}

func repoCLI(t *testing.T) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := FindTemporalCLI(root)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

func TestTemporalInMemory(t *testing.T) {
	ctx := t.Context()
	tc, err := StartTemporal(ctx, TemporalOptions{
		CLI:              repoCLI(t),
		Headless:         true,
		SearchAttributes: testAttributes(),
		Log:              testLogger(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Stop(context.Background())
	c, err := client.Dial(client.Options{HostPort: tc.Address(), Namespace: "default", Logger: QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"}); err != nil {
		t.Fatalf("describe namespace default: %v", err)
	}
	assertAttributes(t, c, "default", testAttributes())

	pid := tc.PID()
	if err := tc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(%d, 0) after Stop = %v, want ESRCH", pid, err)
	}
	assertGone(t, "temporal after Stop", pid)
}

func assertAttributes(t *testing.T, c client.Client, namespace string, want []sdktemporal.SearchAttributeKey) {
	t.Helper()
	resp, err := c.OperatorService().ListSearchAttributes(t.Context(), &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	for _, sa := range want {
		if got := resp.GetCustomAttributes()[sa.GetName()]; got != sa.GetValueType() {
			t.Errorf("search attribute %s in %s: type %s, want %s", sa.GetName(), namespace, got, sa.GetValueType())
		}
	}
}

// TestTemporalFileRestart restarts a file-backed server with one more search attribute and a
// custom namespace, and checks the Web UI answers.
func TestTemporalFileRestart(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	all := testAttributes()
	opts := TemporalOptions{
		CLI:              repoCLI(t),
		DBFile:           filepath.Join(dir, "temporal.db"),
		Namespace:        "recruitd-test",
		SearchAttributes: all[:len(all)-1],
		LogFile:          filepath.Join(dir, "temporal.log"),
		Log:              testLogger(t),
	}
	tc, err := StartTemporal(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(tc.UIURL())
	if err != nil {
		t.Fatalf("web UI: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: status %d", tc.UIURL(), resp.StatusCode)
	}
	if err := tc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	assertGone(t, "temporal after Stop", tc.PID())

	opts.SearchAttributes = all
	opts.Port, opts.UIPort, opts.Headless = 0, 0, true
	tc, err = StartTemporal(ctx, opts)
	if err != nil {
		t.Fatalf("restart on the same DB file: %v", err)
	}
	defer tc.Stop(context.Background())
	c, err := client.Dial(client.Options{HostPort: tc.Address(), Namespace: opts.Namespace, Logger: QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	assertAttributes(t, c, opts.Namespace, all)
	if err := tc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	assertGone(t, "temporal after second Stop", tc.PID())
}

// TestServicesDieWithParent starts both services in a child process, kills that process with
// SIGKILL and checks that neither service outlives it.
func TestServicesDieWithParent(t *testing.T) {
	// Orphans are reparented to us rather than to init, so we can reap them: init here does not,
	// and an unreaped zombie still answers kill(pid, 0).
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	dir := t.TempDir()
	removeRelocated(t, filepath.Join(dir, "pg"))
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperParent$", "-test.v")
	cmd.Env = append(os.Environ(), "DEVSTACK_HELPER_DIR="+dir, "DEVSTACK_HELPER_CLI="+repoCLI(t))
	cmd.Stderr = t.Output()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pgPID, tPID int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "PIDS %d %d", &pgPID, &tPID); err == nil {
			break
		}
	}
	if pgPID == 0 || tPID == 0 {
		cmd.Wait()
		t.Fatal("helper did not report its service pids")
	}
	if !alive(pgPID) || !alive(tPID) {
		t.Fatalf("services not running before the kill: postgres %d, temporal %d", pgPID, tPID)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	reap(t, "postgres after its parent was killed", pgPID)
	reap(t, "temporal after its parent was killed", tPID)
	assertGone(t, "postgres after its parent was killed", pgPID)
	assertGone(t, "temporal after its parent was killed", tPID)
}

// reap waits for an orphan that was reparented to us to exit.
func reap(t *testing.T, what string, pid int) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, syscall.ECHILD) {
			t.Errorf("%s: wait4(%d): %v", what, pid, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("%s: pid %d still running 15s after its parent was killed", what, pid)
	}
}

// TestHelperParent is the process TestServicesDieWithParent kills.
func TestHelperParent(t *testing.T) {
	dir := os.Getenv("DEVSTACK_HELPER_DIR")
	if dir == "" {
		return // only meaningful as TestServicesDieWithParent's child
	}
	pg := startPostgres(t, filepath.Join(dir, "pg"))
	tc, err := StartTemporal(t.Context(), TemporalOptions{CLI: os.Getenv("DEVSTACK_HELPER_CLI"), Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("PIDS %d %d\n", pg.PID(), tc.PID())
	time.Sleep(time.Minute)
	t.Fatal("helper was not killed")
}

func TestFindBinariesErrors(t *testing.T) {
	t.Setenv("PG_BIN", t.TempDir())
	if _, err := FindPostgresBin(); err == nil || !strings.Contains(err.Error(), "PG_BIN") {
		t.Errorf("FindPostgresBin with an empty PG_BIN folder: err = %v, want one naming PG_BIN", err)
	}
	t.Setenv("PG_BIN", "")
	t.Setenv("PATH", t.TempDir())
	bin, err := FindPostgresBin()
	if err != nil {
		t.Fatalf("FindPostgresBin off the PATH: %v (Debian's /usr/lib/postgresql/*/bin should be found)", err)
	}
	if !strings.HasPrefix(bin, "/usr/lib/postgresql/") {
		t.Errorf("FindPostgresBin off the PATH = %s, want /usr/lib/postgresql/<version>/bin", bin)
	}
	t.Setenv("TEMPORAL_CLI", "")
	_, err = FindTemporalCLI(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "make bin/temporal") {
		t.Errorf("FindTemporalCLI without a CLI: err = %v, want one saying to run make bin/temporal", err)
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "devstack")); err != nil {
		t.Errorf("RepoRoot() = %s, which has no internal/devstack", root)
	}
}

// testAttributes stands in for recruitd's attributes (temporal.SearchAttributes), which devstack does not import.
func testAttributes() []sdktemporal.SearchAttributeKey {
	return []sdktemporal.SearchAttributeKey{sdktemporal.NewSearchAttributeKeyKeyword("CompanySlug"), sdktemporal.NewSearchAttributeKeyKeyword("Outcome"), sdktemporal.NewSearchAttributeKeyKeyword("WorkflowTrigger")}
}

// TestTemporalRefusesAGivenBusyPort: a port the caller gave is checked once and named when
// something else listens on it (a port the stack chose itself is chosen again instead).
func TestTemporalRefusesAGivenBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	tc, err := StartTemporal(t.Context(), TemporalOptions{CLI: repoCLI(t), Port: port, Headless: true, Log: testLogger(t)})
	if err == nil {
		tc.Stop(context.Background())
		t.Fatalf("started on port %d, which another listener holds", port)
	}
	if want := fmt.Sprintf("port %d is in use", port); !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to say %q", err, want)
	}
	if p, busy := portsBusy([]int{port}); p != port || busy == nil {
		t.Errorf("portsBusy = %d, %v; want %d and an error", p, busy, port)
	}
}

// TestTailBufferKeepsTheCrash: a server's output that its last lines no longer cover is shown
// with its first lines (a Go panic's message, before every goroutine's stack), without a line
// twice; output its last lines cover is shown whole.
func TestTailBufferKeepsTheCrash(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	for _, c := range []struct {
		name, out string
		max       int
		want      string
	}{
		{"short", lines(1, 5), 1 << 10, strings.TrimSuffix(lines(1, 5), "\n")},
		{"25 lines, all kept", lines(1, 25), 1 << 10, strings.TrimSuffix(lines(1, 25), "\n")},
		{"a crash", "panic: failed assigning ephemeral port\n\ngoroutine 1 [running]:\n" + lines(1, 500), 300,
			"panic: failed assigning ephemeral port\n\ngoroutine 1 [running]:\n" + strings.TrimSuffix(lines(1, 7), "\n") + "\n…\n" + strings.TrimSuffix(lines(481, 500), "\n")},
	} {
		b := &tailBuffer{max: c.max}
		for chunk := range strings.SplitAfterSeq(c.out, "\n") { // as a pipe delivers it, a line at a time
			_, _ = b.Write([]byte(chunk))
		}
		if got := b.String(); got != c.want {
			t.Errorf("%s: String() =\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestFreePortIsHeldBack: the port FreePort returns is held in TIME_WAIT (so the kernel does
// not give it to a bind to port 0 or an outgoing connection for a minute), and a server can
// still bind it.
func TestFreePortIsHeldBack(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	tcp, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	local := fmt.Sprintf("0100007F:%04X", port) // 127.0.0.1 in the kernel's byte order
	held := false
	for line := range strings.Lines(string(tcp)) {
		f := strings.Fields(line)
		if len(f) > 3 && f[1] == local && f[3] == "06" { // st 06: TIME_WAIT
			held = true
		}
	}
	if !held {
		t.Errorf("no TIME_WAIT socket on 127.0.0.1:%d in /proc/net/tcp", port)
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("the port FreePort returned cannot be bound: %v", err)
	}
	l.Close()
}

// TestTemporalStartsAgainAfterACrash: a dev server that exits while it starts (a port it chose
// taken meanwhile: the CLI panics) is started again, and StartTemporal returns the running one;
// one that exits every time is given up after startAttempts, with its panic in the error.
func TestTemporalStartsAgainAfterACrash(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	// crashes is how many starts exit at once, as the CLI does when it cannot take a port.
	cli := func(crashes int) string {
		p := filepath.Join(dir, fmt.Sprintf("temporal-%d", crashes))
		script := fmt.Sprintf(`#!/bin/sh
echo x >> %[1]q
if [ "$(wc -l < %[1]q)" -le %[2]d ]; then
  echo "panic: failed assigning ephemeral port: failed to assign a free port" >&2
  exit 2
fi
exec %[3]q "$@"
`, runs, crashes, repoCLI(t))
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	countRuns := func() int {
		b, _ := os.ReadFile(runs)
		os.Remove(runs)
		return strings.Count(string(b), "\n")
	}

	tc, err := StartTemporal(t.Context(), TemporalOptions{CLI: cli(1), Headless: true, Log: testLogger(t)})
	if err != nil {
		t.Fatalf("one crash at start: %v", err)
	}
	defer tc.Stop(context.Background())
	if n := countRuns(); n != 2 {
		t.Errorf("started %d times, want 2 (a crash, then the server)", n)
	}
	c, err := client.Dial(client.Options{HostPort: tc.Address(), Logger: QuietLogger()})
	if err != nil {
		t.Fatalf("the server started again does not answer: %v", err)
	}
	c.Close()

	_, err = StartTemporal(t.Context(), TemporalOptions{CLI: cli(startAttempts), Headless: true, Log: testLogger(t)})
	if err == nil || !strings.Contains(err.Error(), "panic: failed assigning ephemeral port") {
		t.Errorf("crashing every time: err = %v, want the CLI's panic in it", err)
	}
	if n := countRuns(); n != startAttempts {
		t.Errorf("crashing every time: started %d times, want %d", n, startAttempts)
	}
}
