package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// devSim is a simulator `recruitd dev` serves on a loopback port (the identity provider's,
// Twilio's); nil when the settings name a real service. about is its line in dev's ready message.
type devSim[S interface {
	Close()
	Handler() http.Handler
}] struct {
	url, about string
	sim        S
	srv        *http.Server
}

// listenDevSim listens on a free loopback port for the simulator what; its URL is the base the
// simulator's settings point at.
func listenDevSim(what string) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", what, err)
	}
	return ln, "http://" + ln.Addr().String(), nil
}

// serve serves the simulator on ln in the background.
func (d *devSim[S]) serve(ln net.Listener, what string, log *slog.Logger) {
	d.srv = &http.Server{Handler: d.sim.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := d.srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error(what, "err", err)
		}
	}()
}

func (d *devSim[S]) close() {
	if d == nil {
		return
	}
	d.sim.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.srv.Shutdown(ctx)
}

// line is its line in dev's ready message ("" when none runs).
func (d *devSim[S]) line() string {
	if d == nil {
		return ""
	}
	return d.about
}
