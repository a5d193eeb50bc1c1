package httpapi

import (
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/channels"
)

// twilioMessages is Twilio's Messaging webhook (docs/interviews.md, "Text interviews"): the
// X-Twilio-Signature over the public URL and the form is checked with TWILIO_AUTH_TOKEN, the
// message handed to the thread, and the texts to send back answered as TwiML <Message>s.
func (s *server) twilioMessages(c *gin.Context) {
	form, ok := s.twilioForm(c)
	if !ok {
		return
	}
	in, err := channels.ParseInbound(form)
	if err != nil {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_WEBHOOK", err.Error()))
		return
	}
	texts, err := s.Threads.Receive(c.Request.Context(), in)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Data(http.StatusOK, "text/xml; charset=utf-8", twiml(texts))
}

// twilioStatus is Twilio's status callback of a text recruitd sent (queued, sent, delivered,
// undelivered, failed...), signed like the Messaging webhook: the message's delivery status is
// recorded, forward only.
func (s *server) twilioStatus(c *gin.Context) {
	form, ok := s.twilioForm(c)
	if !ok {
		return
	}
	cb, err := channels.ParseStatusCallback(form)
	if err != nil {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_WEBHOOK", err.Error()))
		return
	}
	if err := s.Threads.Delivery(c.Request.Context(), cb); err != nil {
		s.fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// twilioForm reads a Twilio webhook's form after checking its size and its X-Twilio-Signature
// over the public URL; on false the answer was written.
func (s *server) twilioForm(c *gin.Context) (url.Values, bool) {
	if s.Config.TwilioAuthToken == "" || s.Threads == nil {
		s.fail(c, errNoRoute) // no Twilio account configured: nothing here
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, channels.MaxWebhookBody+1))
	if err != nil || len(body) > channels.MaxWebhookBody {
		s.fail(c, errTooLarge)
		return nil, false
	}
	publicURL := strings.TrimRight(s.Config.PublicBaseURL, "/") + c.Request.URL.RequestURI()
	form, err := channels.ReadTwilioWebhook(s.Config.TwilioAuthToken, publicURL, c.Request.Header, body)
	if errors.Is(err, channels.ErrBadSignature) {
		s.fail(c, errTwilioSignature)
		return nil, false
	}
	if err != nil {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_WEBHOOK", err.Error()))
		return nil, false
	}
	return form, true
}

var errTwilioSignature = newError(http.StatusUnauthorized, "INVALID_SIGNATURE", "the X-Twilio-Signature does not match this request")

// twiml is a TwiML answer sending texts, in order, in the thread.
func twiml(texts []string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><Response>`)
	for _, t := range texts {
		b.WriteString("<Message>")
		_ = xml.EscapeText(&b, []byte(t))
		b.WriteString("</Message>")
	}
	b.WriteString("</Response>")
	return []byte(b.String())
}
