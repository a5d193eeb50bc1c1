package aggregator

import "github.com/prometheus/client_golang/prometheus"

// Metrics count the aggregator webhooks the API receives. A nil *Metrics records nothing.
type Metrics struct {
	webhooks *prometheus.CounterVec
}

// NewMetrics registers the webhook metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recruitd_aggregator_webhooks_total",
		Help: "Aggregator webhooks received, by event type (\"unverified\" before the signature is checked) and outcome.",
	}, []string{"type", "outcome"})}
	reg.MustRegister(m.webhooks)
	return m
}

// Webhook counts one delivery.
func (m *Metrics) Webhook(eventType, outcome string) {
	if m == nil {
		return
	}
	switch eventType {
	case EventIntegrationCreated, EventIntegrationStateChanged, EventDataChanged, "unverified":
	default:
		eventType = "other"
	}
	m.webhooks.WithLabelValues(eventType, outcome).Inc()
}
