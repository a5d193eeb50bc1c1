//go:build race

package hrsuite

const raceEnabled = true
