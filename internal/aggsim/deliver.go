package aggsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// delivery is one webhook event on its way.
type delivery struct {
	url, secret, id string
	body            []byte
}

// enqueue builds an event and queues it; the caller holds s.mu.
func (s *Server) enqueue(in *integration, typ string, data map[string]any) delivery {
	s.seq++
	id := fmt.Sprintf("evt_%x_%06d", s.epoch, s.seq)
	body, _ := json.Marshal(map[string]any{"id": id, "type": typ, "data": data})
	d := delivery{url: in.webhookURL, secret: in.secret, id: id, body: body}
	if s.reorder {
		s.reorder, s.held = false, &d
		return d
	}
	s.queue <- d
	if s.held != nil {
		s.queue <- *s.held
		s.held = nil
	}
	return d
}

// send delivers queued events in order, retrying each up to 5 times with backoff, as an
// aggregator does for a receiver that answers non-2xx.
func (s *Server) send() {
	defer s.done.Done()
	for {
		select {
		case <-s.closed:
			return
		case d := <-s.queue:
			for attempt := range 5 {
				if s.post(d) {
					s.sent.Add(1)
					break
				}
				select {
				case <-s.closed:
					return
				case <-time.After(time.Duration(100<<attempt) * time.Millisecond):
				}
			}
		}
	}
}

func (s *Server) post(d delivery) bool {
	if d.url == "" {
		return true
	}
	req, err := http.NewRequest(http.MethodPost, d.url, bytes.NewReader(d.body))
	if err != nil {
		return true
	}
	ts := time.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", d.id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sign(d.secret, d.id, ts, d.body))
	resp, err := s.hc.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode/100 == 2
}
