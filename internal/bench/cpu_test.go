package bench

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestSampleCPUCountsChildTrees: a busy child process's CPU is counted under its name, and this
// process's under "recruitd".
func TestSampleCPUCountsChildTrees(t *testing.T) {
	before := SampleCPU()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("no shell: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		used := SampleCPU().Sub(before)
		if used["sh"] >= 50*time.Millisecond {
			line := used.PerUnit("unit", 1)
			if !strings.Contains(line, "sh ") || !strings.Contains(line, "all ") {
				t.Fatalf("PerUnit: %q", line)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the busy child's CPU was not counted: %v", used)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
