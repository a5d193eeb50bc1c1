package activities

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/models"
)

// Metrics are the worker's business metrics. A nil *Metrics records nothing (tests).
type Metrics struct {
	settledTotal   *prometheus.CounterVec
	attemptsTotal  *prometheus.CounterVec
	callbacksTotal *prometheus.CounterVec
	toDelivered    prometheus.Histogram
	alertsTotal    prometheus.Counter
	assessment     *assessmentMetrics
}

// NewMetrics registers the worker's metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		settledTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recruitd_partner_applications_settled_total", Help: "Partner applications settled, by terminal status and reason.",
		}, []string{"status", "reason"}),
		attemptsTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recruitd_callback_attempts_total", Help: "Callback delivery attempts, by error class (\"\" when delivered).",
		}, []string{"error_class"}),
		callbacksTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recruitd_callbacks_total", Help: "Callbacks finished, by outcome (delivered, gave_up) and replay.",
		}, []string{"outcome", "replay"}),
		toDelivered: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recruitd_callback_delivery_seconds", Help: "Time from a callback's creation to its delivery.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400},
		}),
		alertsTotal: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recruitd_partner_alerts_total", Help: "Partner applications that could not be processed (operations alerted).",
		}),
	}
	reg.MustRegister(m.settledTotal, m.attemptsTotal, m.callbacksTotal, m.toDelivered, m.alertsTotal)
	m.assessment = newAssessmentMetrics(reg)
	return m
}

// platformReasons are the reasons the platform writes; a definition's own reason (free text a
// company wrote) is counted as "workflow", so the label stays a small, fixed set.
var platformReasons = map[string]bool{
	"": true, "workflow_completed_without_callback": true, "fallback_timeout": true, "processing_failed": true, "repeat_submission": true,
}

func reasonLabel(reason string) string {
	if platformReasons[reason] {
		return reason
	}
	return "workflow"
}

func (m *Metrics) settled(status, reason string) {
	if m != nil {
		m.settledTotal.WithLabelValues(status, reasonLabel(reason)).Inc()
	}
}

func (m *Metrics) attempt(state models.CallbackState, cb *models.Callback, at callbacks.Attempt) {
	if m == nil {
		return
	}
	m.attemptsTotal.WithLabelValues(at.ErrorClass).Inc()
	switch state {
	case models.CallbackStateDelivered:
		m.callbacksTotal.WithLabelValues("delivered", boolLabel(cb.Replay)).Inc()
		m.toDelivered.Observe(at.At.Add(at.Duration).Sub(cb.CreatedAt).Seconds())
	case models.CallbackStateGaveUp:
		m.callbacksTotal.WithLabelValues("gave_up", boolLabel(cb.Replay)).Inc()
	}
}

func (m *Metrics) alert() {
	if m != nil {
		m.alertsTotal.Inc()
	}
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
