package ratelimit

import (
	"testing"
	"time"
)

func TestBuckets(t *testing.T) {
	b := New(1, 3)
	for i := range 3 {
		if ok, _ := b.Allow("k"); !ok {
			t.Fatalf("Allow #%d = false, want the burst of 3", i+1)
		}
	}
	ok, wait := b.Allow("k")
	if ok || wait <= 0 || wait > time.Second {
		t.Errorf("Allow after the burst = %v, %s; want refused with a wait up to 1s", ok, wait)
	}
	if ok, _ := b.Allow("other"); !ok {
		t.Error("Allow(other) = false: keys must not share a bucket")
	}
	if ok, _ := New(0, 0).Allow("k"); !ok {
		t.Error("New(0, 0).Allow = false, want no limit")
	}
}

func TestSlots(t *testing.T) {
	s := NewSlots(2)
	if !s.Acquire("k") || !s.Acquire("k") {
		t.Fatal("Acquire twice = false, want 2 slots")
	}
	if s.Acquire("k") {
		t.Error("third Acquire = true, want the cap of 2")
	}
	if !s.Acquire("other") {
		t.Error("Acquire(other) = false: keys must not share slots")
	}
	s.Release("k")
	if !s.Acquire("k") {
		t.Error("Acquire after Release = false")
	}
}
