package browsertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeApt puts an apt-get on an otherwise empty PATH that logs its arguments and, on install,
// creates an executable chromium beside itself, or fails with exit status 100 when fail is set.
func fakeApt(t *testing.T, fail bool) (dir string) {
	dir = t.TempDir()
	script := `#!/bin/sh
echo "$*" >> "` + dir + `/apt.log"
case "$*" in *" install "*) ` + map[bool]string{
		false: `printf '#!/bin/sh\n' > "` + dir + `/chromium"; /bin/chmod +x "` + dir + `/chromium";;`,
		true:  `echo "E: Unable to locate package chromium"; exit 100;;`,
	}[fail] + `
esac
`
	if err := os.WriteFile(filepath.Join(dir, "apt-get"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	saved := knownPaths
	knownPaths = nil
	t.Cleanup(func() { knownPaths = saved })
	return dir
}

func asRoot(t *testing.T, root bool) {
	saved := isRoot
	isRoot = func() bool { return root }
	t.Cleanup(func() { isRoot = saved })
}

// TestChromiumInstall covers the three ways of a machine without chromium: root installs it
// with apt-get (update, then install), a user who may not install gets the command to run, and a
// failed install says what apt-get said and the command.
func TestChromiumInstall(t *testing.T) {
	t.Run("root installs it", func(t *testing.T) {
		dir := fakeApt(t, false)
		asRoot(t, true)
		path, err := ensureChromium()
		if err != nil {
			t.Fatal(err)
		}
		if path != filepath.Join(dir, "chromium") {
			t.Errorf("path = %q", path)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "apt.log"))
		if got, want := string(log), "update -qq\n-o DPkg::Lock::Timeout=600 install -y -qq chromium\n"; got != want {
			t.Errorf("apt-get ran with\n%s\nwant\n%s", got, want)
		}
		if _, err := ensureChromium(); err != nil { // found now: apt-get does not run again
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(filepath.Join(dir, "apt.log")); string(again) != string(log) {
			t.Errorf("apt-get ran again:\n%s", again)
		}
	})
	t.Run("a user who may not install gets the command", func(t *testing.T) {
		dir := fakeApt(t, false)
		asRoot(t, false) // and no sudo on PATH
		_, err := ensureChromium()
		if err == nil || !strings.Contains(err.Error(), InstallCommand) {
			t.Fatalf("err = %v, want the command %q", err, InstallCommand)
		}
		if _, statErr := os.Stat(filepath.Join(dir, "apt.log")); statErr == nil {
			t.Error("apt-get ran for a user who may not install")
		}
	})
	t.Run("a failed install says why", func(t *testing.T) {
		fakeApt(t, true)
		asRoot(t, true)
		_, err := ensureChromium()
		if err == nil || !strings.Contains(err.Error(), InstallCommand) || !strings.Contains(err.Error(), "Unable to locate package chromium") {
			t.Fatalf("err = %v", err)
		}
	})
}
