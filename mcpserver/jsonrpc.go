package mcpserver

import (
	"bytes"
	"encoding/json"
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
)

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
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body.Bytes())
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

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.status = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
