package httpapi

import (
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/channels"
)

// twilioMessages is Twilio's Messaging webhook (docs/interviews.md, "Text interviews"): the
// X-Twilio-Signature over the public URL and the form is checked with TWILIO_AUTH_TOKEN, the
// message handed to the thread, and the texts to send back answered as TwiML <Message>s.
func (s *server) twilioMessages(c *gin.Context) {
	if s.Config.TwilioAuthToken == "" || s.Threads == nil {
		s.fail(c, errNoRoute) // no Twilio account configured: nothing here
		return
	}
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, channels.MaxWebhookBody+1))
	if err != nil || len(body) > channels.MaxWebhookBody {
		s.fail(c, errTooLarge)
		return
	}
	publicURL := strings.TrimRight(s.Config.PublicBaseURL, "/") + c.Request.URL.RequestURI()
	form, err := channels.ReadTwilioWebhook(s.Config.TwilioAuthToken, publicURL, c.Request.Header, body)
	if errors.Is(err, channels.ErrBadSignature) {
		s.fail(c, errTwilioSignature)
		return
	}
	if err != nil {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_WEBHOOK", err.Error()))
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
