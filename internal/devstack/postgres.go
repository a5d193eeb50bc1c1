package devstack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// FindPostgresBin returns the folder holding initdb and postgres: $PG_BIN if set, else the PATH,
// else the highest /usr/lib/postgresql/*/bin (where Debian installs them, off the PATH).
func FindPostgresBin() (string, error) {
	hasBoth := func(dir string) bool {
		for _, name := range []string{"initdb", "postgres"} {
			st, err := os.Stat(filepath.Join(dir, name))
			if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				return false
			}
		}
		return true
	}
	if dir := os.Getenv("PG_BIN"); dir != "" {
		if !hasBoth(dir) {
			return "", fmt.Errorf("initdb or postgres not found in PG_BIN=%s", dir)
		}
		return dir, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if dir := filepath.Dir(p); hasBoth(dir) {
			return dir, nil
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && hasBoth(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	best, bestVersion := "", -1.0
	for _, dir := range dirs {
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		if err == nil && v > bestVersion && hasBoth(dir) {
			best, bestVersion = dir, v
		}
	}
	if best == "" {
		return "", errors.New("initdb not found; install the Debian package: apt-get install -y postgresql (or set PG_BIN)")
	}
	return best, nil
}

// PostgresOptions configures StartPostgres.
type PostgresOptions struct {
	// Dir holds the cluster: Dir/data, the log Dir/postgres.log and the socket folder Dir/run.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// User is the superuser initdb creates (default "recruitd"). Authentication is trust, so the
	// server listens on 127.0.0.1 only.
	User string
	// Fast trades durability for speed (fsync, synchronous_commit and full_page_writes off) and
	// allows more connections; for tests.
	Fast bool
	// Settings are extra server settings (name → value), passed as -c name=value.
	Settings map[string]string
	Log      *slog.Logger
}

// TrackStatements are the settings that load pg_stat_statements and count every statement,
// nested ones (triggers, functions) included, with its planning: the bench's statement dumps and
// the tests that count plans read them.
func TrackStatements() map[string]string {
	return map[string]string{"shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "all",
		"pg_stat_statements.track_planning": "on"}
}

// Postgres is a running private cluster.
type Postgres struct {
	port     int
	user     string
	dir      string // PostgresOptions.Dir, absolute
	dataDir  string // the real data folder (under /var/tmp when relocated)
	runDir   string // socket folder
	logPath  string
	movedTo  string // relocation folder under /var/tmp, or ""
	shortRun bool   // runDir is a short folder under os.TempDir
	proc     *child
	log      *slog.Logger

	stopOnce sync.Once
	stopErr  error
}

// serviceUser is the unprivileged account initdb and postgres run as when we are root.
type serviceUser struct {
	name   string
	uid    int
	gid    int
	groups []int
}

func lookupServiceUser() (*serviceUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, so initdb and postgres must run as user postgres: %w (install the Debian package postgresql, which creates it)", err)
	}
	su := &serviceUser{name: u.Username}
	if su.uid, err = strconv.Atoi(u.Uid); err != nil {
		return nil, fmt.Errorf("uid of postgres: %w", err)
	}
	if su.gid, err = strconv.Atoi(u.Gid); err != nil {
		return nil, fmt.Errorf("gid of postgres: %w", err)
	}
	gids, _ := u.GroupIds()
	for _, g := range gids {
		if n, err := strconv.Atoi(g); err == nil {
			su.groups = append(su.groups, n)
		}
	}
	return su, nil
}

// apply makes cmd run as the service user (nothing when su is nil).
func (su *serviceUser) apply(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if su == nil {
		return
	}
	cred := &syscall.Credential{Uid: uint32(su.uid), Gid: uint32(su.gid)}
	for _, g := range su.groups {
		cred.Groups = append(cred.Groups, uint32(g))
	}
	cmd.SysProcAttr.Credential = cred
}

// own gives path to the service user (nothing when su is nil).
func (su *serviceUser) own(path string) error {
	if su == nil {
		return nil
	}
	if err := os.Lchown(path, su.uid, su.gid); err != nil {
		return fmt.Errorf("give %s to %s: %w", path, su.name, err)
	}
	return nil
}

// canTraverse reports whether the service user may search every folder from / down to dir,
// judging by mode bits (ACLs are not considered).
func (su *serviceUser) canTraverse(dir string) bool {
	if su == nil {
		return true
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	for p := real; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return false
		}
		sys := st.Sys().(*syscall.Stat_t)
		mode := st.Mode().Perm()
		var ok bool
		switch {
		case int(sys.Uid) == su.uid:
			ok = mode&0o100 != 0
		case int(sys.Gid) == su.gid || slices.Contains(su.groups, int(sys.Gid)):
			ok = mode&0o010 != 0
		default:
			ok = mode&0o001 != 0
		}
		if !ok {
			return false
		}
		if p == "/" {
			return true
		}
	}
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

// maxSocketDir is the longest socket folder we use: the socket path (folder + "/.s.PGSQL.65535")
// must fit the 108 bytes of sun_path.
const maxSocketDir = 90

// StartPostgres starts a private cluster in o.Dir, running initdb first when Dir/data holds no
// cluster yet, and returns once it accepts connections.
//
// When running as root, initdb and postgres run as user postgres; if that user cannot reach Dir
// (t.TempDir() is 0700, for instance), the cluster lives in /var/tmp/recruitd-pg-<hash of Dir>
// and Dir/data is a symlink to it.
func StartPostgres(ctx context.Context, o PostgresOptions) (*Postgres, error) {
	began := time.Now()
	log := orDiscard(o.Log)
	if o.Dir == "" {
		return nil, errors.New("start postgres: no folder given")
	}
	if o.User == "" {
		o.User = "recruitd"
	}
	bin, err := FindPostgresBin()
	if err != nil {
		return nil, err
	}
	su, err := lookupServiceUser()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if o.Port == 0 {
		if o.Port, err = FreePort(); err != nil {
			return nil, fmt.Errorf("start postgres: %w", err)
		}
	}
	p := &Postgres{
		port:    o.Port,
		user:    o.User,
		dir:     dir,
		dataDir: filepath.Join(dir, "data"),
		runDir:  filepath.Join(dir, "run"),
		logPath: filepath.Join(dir, "postgres.log"),
		log:     log,
	}
	if err := p.prepareFolders(su); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if pid := livePostmaster(p.dataDir); pid != 0 {
		return nil, fmt.Errorf("start postgres: a postgres server (pid %d) is already running on %s; stop it first", pid, p.dataDir)
	}

	logFile, err := os.OpenFile(p.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	defer logFile.Close()

	if _, err := os.Stat(filepath.Join(p.dataDir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		log.Info("initdb", "dir", p.dataDir)
		args := []string{"-D", p.dataDir, "-U", o.User, "--auth=trust", "--encoding=UTF8", "--no-locale"}
		if o.Fast {
			args = append(args, "--no-sync")
		}
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), args...)
		cmd.Dir = "/"
		cmd.Stdout, cmd.Stderr = logFile, logFile
		su.apply(cmd)
		cmd.SysProcAttr.Setpgid = true
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("initdb %s: %w\n%s", p.dataDir, err, fileTail(p.logPath, 20))
		}
	} else if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}

	args := []string{
		"-D", p.dataDir,
		"-p", strconv.Itoa(o.Port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + p.runDir,
	}
	if o.Fast {
		args = append(args,
			"-c", "fsync=off",
			"-c", "synchronous_commit=off",
			"-c", "full_page_writes=off",
			"-c", "wal_level=minimal",
			"-c", "max_wal_senders=0",
			"-c", "max_connections=300",
		)
	}
	for _, k := range slices.Sorted(maps.Keys(o.Settings)) {
		args = append(args, "-c", k+"="+o.Settings[k])
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = logFile, logFile
	su.apply(cmd)
	// SIGQUIT is an immediate shutdown: the postmaster takes its backends down with it.
	p.proc, err = startChild(cmd, syscall.SIGQUIT)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if err := p.waitReady(ctx, 30*time.Second); err != nil {
		_ = p.Stop(context.Background())
		return nil, err
	}
	log.Info("postgres ready", "port", o.Port, "dir", dir, "pid", p.proc.pid, "duration", time.Since(began).Round(time.Millisecond))
	return p, nil
}

// prepareFolders creates the data and socket folders, relocating the cluster when the service
// user cannot reach Dir.
func (p *Postgres) prepareFolders(su *serviceUser) error {
	link := p.dataDir
	if target, err := os.Readlink(link); err == nil {
		// Relocated by an earlier run.
		p.dataDir = target
		p.movedTo = filepath.Dir(target)
		p.runDir = filepath.Join(p.movedTo, "run")
	} else if !su.canTraverse(p.dir) {
		if _, err := os.Lstat(link); err == nil {
			return fmt.Errorf("%s exists but user %s cannot reach it (make %s and its parents searchable, or use another folder)", link, su.name, p.dir)
		}
		p.movedTo = filepath.Join("/var/tmp", "recruitd-pg-"+shortHash(p.dir))
		p.dataDir = filepath.Join(p.movedTo, "data")
		p.runDir = filepath.Join(p.movedTo, "run")
		if err := os.Symlink(p.dataDir, link); err != nil {
			return err
		}
		p.log.Info("postgres cluster relocated: user postgres cannot reach the folder", "dir", p.dir, "cluster", p.dataDir, "symlink", link)
	}
	if p.movedTo != "" {
		if err := os.MkdirAll(p.movedTo, 0o700); err != nil {
			return err
		}
		if err := su.own(p.movedTo); err != nil {
			return err
		}
	}
	if len(p.runDir) > maxSocketDir {
		p.runDir = filepath.Join(os.TempDir(), "recruitd-pg-"+shortHash(p.dir)+".s")
		p.shortRun = true
	}
	for _, d := range []string{p.dataDir, p.runDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		if err := su.own(d); err != nil {
			return err
		}
	}
	return nil
}

// livePostmaster returns the pid recorded in dataDir/postmaster.pid when that process is alive
// and is a postgres, else 0.
func livePostmaster(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 || !alive(pid) {
		return 0
	}
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && !strings.Contains(string(comm), "postgres") {
		return 0 // the pid was reused by another program
	}
	return pid
}

func (p *Postgres) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		attempt, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(attempt, p.URL("postgres"))
		var dataDir string
		if err == nil {
			err = conn.QueryRow(attempt, "SHOW data_directory").Scan(&dataDir)
			conn.Close(attempt)
		}
		cancel()
		if err == nil {
			// Another server may hold the port while ours fails to bind it.
			if !sameDir(dataDir, p.dataDir) {
				return fmt.Errorf("start postgres: port %d is taken by another postgres server (data directory %s)", p.port, dataDir)
			}
			return nil
		}
		last = err
		select {
		case <-p.proc.done:
			return fmt.Errorf("start postgres: exited during startup (%v); %s:\n%s", p.proc.err, p.logPath, fileTail(p.logPath, 20))
		case <-ctx.Done():
			return fmt.Errorf("start postgres: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("start postgres: not accepting connections after %s (%v); %s:\n%s", timeout, last, p.logPath, fileTail(p.logPath, 20))
		}
	}
}

func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// URL is the connection URL of database as the superuser.
func (p *Postgres) URL(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(p.user),
		Host:     fmt.Sprintf("127.0.0.1:%d", p.port),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// EnsureDatabase creates database name unless it exists.
func (p *Postgres) EnsureDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, p.URL("postgres"))
	if err != nil {
		return fmt.Errorf("ensure database %s: %w", name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("ensure database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: created meanwhile
		return nil
	}
	if err != nil {
		return fmt.Errorf("ensure database %s: %w", name, err)
	}
	p.log.Info("database created", "name", name)
	return nil
}

// Stop shuts the server down: a fast shutdown (SIGINT), then an immediate one (SIGQUIT), then
// SIGKILL to the whole process group, each after a timeout (or at once when ctx ends). Safe to
// call more than once.
func (p *Postgres) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() {
		err := p.proc.stop(ctx, []stopStep{
			{sig: syscall.SIGINT, wait: 20 * time.Second},
			{sig: syscall.SIGQUIT, wait: 5 * time.Second},
		})
		if p.shortRun {
			_ = os.Remove(p.runDir)
		}
		if err != nil {
			p.stopErr = fmt.Errorf("stop postgres: %w", err)
			return
		}
		p.log.Info("postgres stopped", "port", p.port, "dir", p.dir)
	})
	return p.stopErr
}

// Destroy stops the server and deletes the cluster, its log and socket folder, including a
// cluster relocated under /var/tmp. Dir itself stays.
func (p *Postgres) Destroy(ctx context.Context) error {
	if err := p.Stop(ctx); err != nil {
		return err
	}
	paths := []string{filepath.Join(p.dir, "data"), p.dataDir, p.runDir, p.logPath}
	if p.movedTo != "" {
		paths = append(paths, p.movedTo)
	}
	var errs []error
	for _, path := range paths {
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("destroy postgres cluster: %w", err)
	}
	return nil
}

// PID is the postmaster's process id.
func (p *Postgres) PID() int { return p.proc.pid }

// Port is the TCP port the server listens on (127.0.0.1).
func (p *Postgres) Port() int { return p.port }

// DataDir is the real data folder (it differs from Dir/data when the cluster was relocated).
func (p *Postgres) DataDir() string { return p.dataDir }

// LogPath is the server's log file.
func (p *Postgres) LogPath() string { return p.logPath }

// orphanGrace is how long the processes a dead postmaster left behind get to quit on SIGQUIT
// before SIGKILL, and orphanWait how long Restart waits for them in all.
const (
	orphanGrace = 5 * time.Second
	orphanWait  = 20 * time.Second
)

// Restart starts the cluster again after its postmaster died (kill -9, a crash) and returns the
// new server. Backends outlive a killed postmaster (one busy in a query does not notice) and keep
// its shared memory attached, and a new postmaster refuses to start beside them ("pre-existing
// shared memory block ... is still in use"). So Restart first waits until they are gone: it asks
// them to quit with SIGQUIT, as a postmaster does in an immediate shutdown, sends SIGKILL after
// orphanGrace, and gives up after orphanWait (the caller may try again).
func (p *Postgres) Restart(ctx context.Context, o PostgresOptions) (*Postgres, error) {
	if !p.proc.exited() {
		return nil, fmt.Errorf("restart postgres: pid %d is still running", p.proc.pid)
	}
	if pid := livePostmaster(p.dataDir); pid != 0 {
		return nil, fmt.Errorf("restart postgres: another postgres server (pid %d) runs on %s", pid, p.dataDir)
	}
	if err := p.awaitOrphans(ctx); err != nil {
		return nil, err
	}
	return StartPostgres(ctx, o)
}

func (p *Postgres) awaitOrphans(ctx context.Context) error {
	began := time.Now()
	shmID := sharedMemoryID(p.dataDir)
	signalled := map[int]syscall.Signal{}
	for {
		left := clusterProcesses(p.dataDir)
		attached := attachments(shmID)
		if len(left) == 0 && attached == 0 {
			if len(signalled) > 0 {
				p.log.Info("postgres: leftover processes of the dead server are gone", "pids", len(signalled), "duration", time.Since(began).Round(time.Millisecond))
			}
			return nil
		}
		sig := syscall.SIGQUIT
		if time.Since(began) > orphanGrace {
			sig = syscall.SIGKILL
		}
		for _, pid := range left {
			if signalled[pid] != sig {
				if len(signalled) == 0 {
					p.log.Warn("postgres: the dead server left processes behind; stopping them", "pids", left, "signal", sig)
				}
				signalled[pid] = sig
				_ = syscall.Kill(pid, sig)
			}
		}
		if time.Since(began) > orphanWait {
			return fmt.Errorf("restart postgres: the old server's processes %v (shared memory attachments: %d) are still there after %s", left, attached, orphanWait)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("restart postgres: waiting for the old server's processes %v: %w", left, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// clusterProcesses lists the live (not zombie) postgres processes whose working folder is
// dataDir: a postmaster and every process it starts run there, and no other cluster's do.
func clusterProcesses(dataDir string) []int {
	want, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err != nil || cwd != want {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ...; comm may hold spaces and ')', so cut at the last ')'.
		open, end := strings.IndexByte(string(stat), '('), strings.LastIndexByte(string(stat), ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(string(stat[end+1:]))
		if len(fields) > 0 && fields[0] != "Z" && strings.Contains(string(stat[open+1:end]), "postgres") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sharedMemoryID is the System V shared memory id dataDir/postmaster.pid records (line 7:
// "key id"), or -1.
func sharedMemoryID(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return -1
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 7 {
		return -1
	}
	f := strings.Fields(lines[6])
	if len(f) != 2 {
		return -1
	}
	id, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return id
}

// attachments is the number of processes attached to the System V shared memory segment id
// (0 when id < 0 or the segment is gone), from /proc/sysvipc/shm.
func attachments(id int) int {
	if id < 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		// key shmid perms size cpid lpid nattch ...
		f := strings.Fields(line)
		if len(f) >= 7 && f[1] == strconv.Itoa(id) {
			n, _ := strconv.Atoi(f[6])
			return n
		}
	}
	return 0
}
