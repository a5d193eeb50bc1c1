package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// EngineConfig is the configuration of a model-backed engine (the interviewer, the evaluator):
// the LLM_* settings, a timeout and where fallbacks are logged.
type EngineConfig struct {
	// BaseURL is LLM_BASE_URL; empty chooses the engine's local rules.
	BaseURL string
	APIKey  string
	Model   string
	// Timeout bounds one model call; 0 is the engine's default, and a larger one than the
	// engine's maximum (such as the generator's LLM_TIMEOUT) is cut to it.
	Timeout    time.Duration
	HTTPClient *http.Client
	// Log receives one warning per fallback, with enumerations only; nil discards.
	Log *slog.Logger
}

// Engine is what a model-backed engine holds: the client, its bounded timeout, its log.
type Engine struct {
	Chat    *Client
	Timeout time.Duration
	Log     *slog.Logger
}

// Open checks c for the engine called name (in errors) and returns its client, with the
// timeout bounded by max and defaulting to def, and a log that discards when c has none.
func (c EngineConfig) Open(name string, def, max time.Duration) (Engine, error) {
	chat, err := New(Config{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model, HTTPClient: c.HTTPClient})
	if err != nil {
		return Engine{}, fmt.Errorf("%s: %w", name, err)
	}
	if c.Timeout < 0 {
		return Engine{}, errors.New(name + ": timeout must be >= 0")
	}
	e := Engine{Chat: chat, Timeout: min(c.Timeout, max), Log: c.Log}
	if e.Timeout == 0 {
		e.Timeout = def
	}
	if e.Log == nil {
		e.Log = slog.New(slog.DiscardHandler)
	}
	return e, nil
}
