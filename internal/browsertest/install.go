package browsertest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// InstallCommand installs Debian's chromium; a test that cannot run it itself prints it.
const InstallCommand = "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"

// knownPaths are where Debian's chromium package puts the browser, looked at after PATH.
var knownPaths = []string{"/usr/bin/chromium"}

// isRoot reports whether this process may run apt-get itself (a variable for the tests).
var isRoot = func() bool { return os.Geteuid() == 0 }

var (
	chromiumOnce sync.Once
	chromiumPath string
	chromiumErr  error
)

// Chromium returns the path of Debian's chromium, installing the package first when it is
// missing and this user may install packages (root, or sudo without a password). Otherwise the
// test fails with the command to run; it never skips. The install runs once per machine: test
// processes that need it at the same time wait on a lock file and find it installed.
func Chromium(t testing.TB) string {
	t.Helper()
	chromiumOnce.Do(func() { chromiumPath, chromiumErr = ensureChromium() })
	if chromiumErr != nil {
		t.Fatalf("browsertest: %v", chromiumErr)
	}
	return chromiumPath
}

func findChromium() (string, bool) {
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, true
	}
	for _, p := range knownPaths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

func ensureChromium() (string, error) {
	if p, ok := findChromium(); ok {
		return p, nil
	}
	sudo, may := installer()
	if !may {
		return "", fmt.Errorf("chromium is not installed and this user may not install packages; run as root:\n\n\t%s\n", InstallCommand)
	}
	unlock, err := lockInstall()
	if err != nil {
		return "", fmt.Errorf("lock the chromium install: %w", err)
	}
	defer unlock()
	if p, ok := findChromium(); ok { // another process installed it while this one waited
		return p, nil
	}
	fmt.Fprintln(os.Stderr, "browsertest: chromium not found; installing Debian's chromium with apt-get (once per machine, a minute or two)")
	start := time.Now()
	if out, err := aptInstall(sudo); err != nil {
		return "", fmt.Errorf("install chromium (%w); run as root:\n\n\t%s\n\napt-get said:\n%s", err, InstallCommand, tail(out, 4000))
	}
	fmt.Fprintf(os.Stderr, "browsertest: chromium installed in %s\n", time.Since(start).Round(time.Second))
	if p, ok := findChromium(); ok {
		return p, nil
	}
	return "", fmt.Errorf("apt-get installed chromium but neither `chromium` on PATH nor %v exists", knownPaths)
}

// installer reports whether this user may install packages, and whether through sudo.
func installer() (sudo, may bool) {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return false, false
	}
	if isRoot() {
		return false, true
	}
	if _, err := exec.LookPath("sudo"); err == nil && exec.Command("sudo", "-n", "true").Run() == nil {
		return true, true
	}
	return false, false
}

// aptInstall runs InstallCommand. The dpkg lock timeout lets it wait for another apt-get (a
// postgresql or nodejs install of .ci/run) instead of failing at once.
func aptInstall(sudo bool) ([]byte, error) {
	var all bytes.Buffer
	for _, args := range [][]string{
		{"apt-get", "update", "-qq"},
		{"apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y", "-qq", "chromium"},
	} {
		if sudo {
			args = append([]string{"sudo", "-n", "env", "DEBIAN_FRONTEND=noninteractive"}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = &all, &all
		if err := cmd.Run(); err != nil {
			return all.Bytes(), fmt.Errorf("%v: %w", args, err)
		}
	}
	return all.Bytes(), nil
}

// lockInstall takes an exclusive lock shared by every process on the machine.
func lockInstall() (func(), error) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "recruitd-chromium-install.lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
