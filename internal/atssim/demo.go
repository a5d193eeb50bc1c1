package atssim

import (
	"time"

	"github.com/recruitd/recruitd/models"
)

// DemoRecords returns the records of the demo tenant, with stable ids. The demo jobs (see
// internal/seed) are 5001 (open), 1001 (open) and 1003 (paused).
//
//	ATS-A job submissions  1001..1005 on job 5001 (candidates 7001..7005), 1006 on job 1001,
//	                       1007 on the paused job 1003, 1097 answers after 2 s,
//	                       1098 answers 503, 1099 hangs
//	ATS-B opp. resources   2001..2003 on opportunity 5001 (resources 8001..8003),
//	                       2098 answers 503, 2099 hangs
//	ATS-C job candidates   3001..3003 on job 5001 (person id = candidate id),
//	                       3098 answers 503, 3099 hangs (all under job 5001)
func DemoRecords() []Record {
	a, b, c := models.ATSTypeA, models.ATSTypeB, models.ATSTypeC
	return []Record{
		{ATSType: a, ApplicantID: 1001, JobID: 5001, CandidateID: 7001, FirstName: "Ada", LastName: "Quinn", Email: "ada.quinn@example.com", Phone: "+14155550101"},
		{ATSType: a, ApplicantID: 1002, JobID: 5001, CandidateID: 7002, FirstName: "Ben", LastName: "Okafor", Email: "ben.okafor@example.com", Phone: "+14155550102"},
		{ATSType: a, ApplicantID: 1003, JobID: 5001, CandidateID: 7003, FirstName: "Chloé", LastName: "Martin", Email: "chloe.martin@example.com", Phone: "+14155550103"},
		{ATSType: a, ApplicantID: 1004, JobID: 5001, CandidateID: 7004, FirstName: "Dev", LastName: "Patel", Email: "dev.patel@example.com"},
		{ATSType: a, ApplicantID: 1005, JobID: 5001, CandidateID: 7005, FirstName: "Eun-ji", LastName: "Park", Phone: "+14155550105"},
		{ATSType: a, ApplicantID: 1006, JobID: 1001, CandidateID: 7006, FirstName: "Femi", LastName: "Adeyemi", Email: "femi.adeyemi@example.com", Phone: "+14155550106"},
		{ATSType: a, ApplicantID: 1007, JobID: 1003, CandidateID: 7007, FirstName: "Gus", LastName: "Lindqvist", Email: "gus.lindqvist@example.com", Phone: "+14155550107"},
		{ATSType: a, ApplicantID: 1097, JobID: 5001, CandidateID: 7097, FirstName: "Slow", LastName: "Answer", Email: "slow@example.com", Latency: 2 * time.Second},
		{ATSType: a, ApplicantID: 1098, JobID: 5001, CandidateID: 7098, FirstName: "Outage", LastName: "Fivehundredthree", Email: "outage@example.com", Status: 503},
		{ATSType: a, ApplicantID: 1099, JobID: 5001, CandidateID: 7099, FirstName: "Hang", LastName: "Forever", Email: "hang@example.com", Hang: true},

		{ATSType: b, ApplicantID: 2001, JobID: 5001, CandidateID: 8001, FirstName: "Hana", LastName: "Sato", Email: "hana.sato@example.com", Phone: "+14155550121"},
		{ATSType: b, ApplicantID: 2002, JobID: 5001, CandidateID: 8002, FirstName: "Ivan", LastName: "Petrov", Email: "ivan.petrov@example.com", Phone: "+14155550122"},
		{ATSType: b, ApplicantID: 2003, JobID: 5001, CandidateID: 8003, FirstName: "Jo", LastName: "Nakamura", Email: "jo.nakamura@example.com"},
		{ATSType: b, ApplicantID: 2098, JobID: 5001, CandidateID: 8098, FirstName: "Outage", LastName: "Fivehundredthree", Email: "outage@example.com", Status: 503},
		{ATSType: b, ApplicantID: 2099, JobID: 5001, CandidateID: 8099, FirstName: "Hang", LastName: "Forever", Email: "hang@example.com", Hang: true},

		{ATSType: c, ApplicantID: 3001, JobID: 5001, CandidateID: 3001, FirstName: "Kofi", LastName: "Mensah", Email: "kofi.mensah@example.com", Phone: "+14155550131"},
		{ATSType: c, ApplicantID: 3002, JobID: 5001, CandidateID: 3002, FirstName: "Lena", LastName: "Fischer", Email: "lena.fischer@example.com", Phone: "+14155550132"},
		{ATSType: c, ApplicantID: 3003, JobID: 5001, CandidateID: 3003, FirstName: "Mateo", LastName: "García", Phone: "+14155550133"},
		{ATSType: c, ApplicantID: 3098, JobID: 5001, CandidateID: 3098, FirstName: "Outage", LastName: "Fivehundredthree", Email: "outage@example.com", Status: 503},
		{ATSType: c, ApplicantID: 3099, JobID: 5001, CandidateID: 3099, FirstName: "Hang", LastName: "Forever", Email: "hang@example.com", Hang: true},
	}
}
