package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcServerError    = -32000 // a message of a batch that was not run (rate limit, credentials)
)

// maxBatch is the most messages one JSON-RPC batch may hold.
const maxBatch = 10

// noBatchesSince is the first MCP revision without JSON-RPC batches.
const noBatchesSince = "2025-06-18"

// batches serves a JSON-RPC batch (MCP 2025-03-26 and earlier, which a request without an
// MCP-Protocol-Version header is taken to speak) as its messages, one after another, each
// through auth and next as if it had been sent alone: each is authenticated and spends the
// key's rate budget and a concurrency slot like a request of its own, and the SDK never runs a
// batch's calls at once. The answer is written as the calls finish, so no more than one
// message's answer is held. A message the limits refuse, after another has been answered, is
// answered with a JSON-RPC error saying why, as is every message after it; a refusal of the
// first is the batch's answer (401, 429, ...). A batch of more than maxBatch messages, an empty
// one, and any batch from a client of MCP 2025-06-18 or later (which removed batches) are
// refused whole, after authentication, with a JSON-RPC error. Anything else goes to auth(next).
func batches(auth func(http.Handler) http.Handler, next http.Handler) http.Handler {
	serve := auth(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			serve.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		if err != nil || !isBatch(body) {
			serve.ServeHTTP(w, r) // the read error, if any, is met again and answered there
			return
		}
		msgs, refusal := splitBatch(body, r.Header.Get("MCP-Protocol-Version"))
		if refusal != nil {
			auth(refusal).ServeHTTP(w, r)
			return
		}
		runBatch(w, r, serve, msgs)
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

// isBatch reports whether body is a JSON array (its first byte after white space is '[').
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// splitBatch returns the messages of a batch, or the handler that answers its refusal. It reads
// no more than maxBatch+1 messages.
func splitBatch(body []byte, version string) ([]json.RawMessage, http.Handler) {
	refuse := func(code int, msg string) ([]json.RawMessage, http.Handler) {
		return nil, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeRPCError(w, http.StatusBadRequest, nil, code, msg)
		})
	}
	if version >= noBatchesSince {
		return refuse(rpcInvalidRequest, "Invalid request: MCP "+noBatchesSince+" and later (this request's MCP-Protocol-Version is "+
			version+") have no JSON-RPC batches; send one message per request")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return refuse(rpcParseError, "Parse error: the body is not a JSON-RPC 2.0 message")
	}
	var msgs []json.RawMessage
	for dec.More() {
		if len(msgs) == maxBatch {
			return refuse(rpcInvalidRequest, "Invalid request: a batch holds at most "+strconv.Itoa(maxBatch)+
				" messages; send more in several requests")
		}
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			return refuse(rpcParseError, "Parse error: the body is not a JSON-RPC 2.0 message")
		}
		msgs = append(msgs, m)
	}
	if _, err := dec.Token(); err != nil {
		return refuse(rpcParseError, "Parse error: the body is not a JSON-RPC 2.0 message")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return refuse(rpcParseError, "Parse error: the body is not a JSON-RPC 2.0 message")
	}
	if len(msgs) == 0 {
		return refuse(rpcInvalidRequest, "Invalid request: an empty batch")
	}
	return msgs, nil
}

// runBatch serves msgs one by one through serve and writes their answers as a JSON array.
func runBatch(w http.ResponseWriter, r *http.Request, serve http.Handler, msgs []json.RawMessage) {
	started := false
	answer := func(b []byte) {
		if !started {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-cache, no-transform")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte{'['})
			started = true
		} else {
			_, _ = w.Write([]byte{','})
		}
		_, _ = w.Write(bytes.TrimSpace(b))
	}
	for i, m := range msgs {
		if r.Context().Err() != nil {
			return // the client went away: run nothing more
		}
		if b := bytes.TrimSpace(m); len(b) == 0 || b[0] != '{' { // a nested batch, a number: not a message
			answer(rpcError(json.RawMessage("null"), rpcInvalidRequest, "Invalid request: a batch holds JSON-RPC message objects"))
			continue
		}
		sub := r.Clone(r.Context())
		sub.Body, sub.ContentLength = io.NopCloser(bytes.NewReader(m)), int64(len(m))
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		serve.ServeHTTP(rec, sub)
		switch {
		case rec.status == http.StatusAccepted: // a notification
		case isRPCAnswer(rec):
			answer(rec.body.Bytes())
		case !started:
			rec.replay(w) // the first message's refusal is the batch's
			return
		default:
			why := refusalText(rec)
			for _, rest := range msgs[i:] {
				if id := callID(rest); id != nil {
					answer(rpcError(id, rpcServerError, why))
				}
			}
			_, _ = w.Write([]byte{']'})
			return
		}
	}
	if !started {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	_, _ = w.Write([]byte{']'})
}

// isRPCAnswer reports whether rec holds a JSON-RPC response (a result, or an error about the
// message) rather than a refusal of the request.
func isRPCAnswer(rec *recorder) bool {
	if (rec.status != http.StatusOK && rec.status != http.StatusBadRequest) || !strings.HasPrefix(rec.header.Get("Content-Type"), "application/json") {
		return false
	}
	var msg struct {
		JSONRPC string `json:"jsonrpc"`
	}
	return json.Unmarshal(rec.body.Bytes(), &msg) == nil && msg.JSONRPC == "2.0"
}

// refusalText says why a message of a batch was not run, from the refusal its request got.
func refusalText(rec *recorder) string {
	switch rec.status {
	case http.StatusTooManyRequests:
		return "rate limited: this call was not run; retry it after " + rec.header.Get("Retry-After") + " s"
	case http.StatusUnauthorized, http.StatusForbidden:
		return "unauthorized: this call was not run; check the credential"
	}
	return "this call was not run (HTTP " + strconv.Itoa(rec.status) + "); retry it"
}

// callID is the id of a call, or nil for a notification or a message that is not an object.
func callID(m json.RawMessage) json.RawMessage {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(m, &msg) != nil || len(msg.ID) == 0 {
		return nil
	}
	return msg.ID
}

func rpcError(id json.RawMessage, code int, message string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return b
}

// goInternals matches error text that names Go types or packages ("*mcp.CallToolParamsRaw",
// "Go value of type", "jobtools.JobsSummaryInput.limit").
var goInternals = regexp.MustCompile(`Go value of type|\*?\b[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]*(Raw|Input|Params|Request|Result)\b|unmarshaling`)

// jsonrpcErrors answers transport failures the way a JSON-RPC client expects: a body that is
// not a JSON-RPC message, an unknown method and malformed params get JSON-RPC error objects
// (with the request's id when it has one), never plain text, and no message names a Go type.
func jsonrpcErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "Parse error: the request body could not be read")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		parsed := json.Unmarshal(body, &req) == nil
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(rec, r)

		ctype := rec.header.Get("Content-Type")
		switch {
		case rec.status == http.StatusBadRequest && !strings.HasPrefix(ctype, "application/json"):
			msg := rec.body.String()
			switch {
			case !parsed:
				writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "Parse error: the body is not a JSON-RPC 2.0 message")
			case strings.Contains(msg, "not handled") || strings.Contains(msg, "unsupported"):
				writeRPCError(w, http.StatusBadRequest, req.ID, rpcMethodNotFound, "Method not found: "+strconv.Quote(req.Method))
			case goInternals.MatchString(msg):
				writeRPCError(w, http.StatusBadRequest, req.ID, rpcInvalidRequest, "Invalid request: not a JSON-RPC 2.0 request this server accepts")
			default: // the transport's own reason (Accept header, protocol version) names no internals
				writeRPCError(w, http.StatusBadRequest, req.ID, rpcInvalidRequest, "Invalid request: "+strings.TrimSpace(msg))
			}
			return
		case strings.HasPrefix(ctype, "application/json") && bytes.Contains(rec.body.Bytes(), []byte(`"error"`)):
			if fixed, ok := cleanRPCError(rec.body.Bytes(), req.Method); ok {
				rec.body.Reset()
				rec.body.Write(fixed)
				rec.header.Del("Content-Length")
			}
		}
		rec.replay(w)
	})
}

// cleanRPCError rewrites an error object whose message names Go internals.
func cleanRPCError(b []byte, method string) ([]byte, bool) {
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &msg) != nil || msg.Error == nil || !goInternals.MatchString(msg.Error.Message) {
		return nil, false
	}
	text := "Invalid params: " + strconv.Quote(method) + " takes an object of named parameters"
	if method == "tools/call" {
		text = `Invalid params: tools/call takes {"name": <tool name>, "arguments": {...}}`
	}
	msg.Error.Message, msg.Error.Code = text, rpcInvalidParams
	out, err := json.Marshal(msg)
	return out, err == nil
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message},
	})
}

// recorder buffers a response (the transport answers in JSON, not streams).
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// replay writes the recorded response to w.
func (r *recorder) replay(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.status = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
