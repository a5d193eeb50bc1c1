package seed

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/recruitd/recruitd/internal/bulkload"
	"github.com/recruitd/recruitd/models"
)

// The tables a candidate's rows go to, in the order Postgres needs them when foreign keys are
// checked row by row (ScaleOptions.Checked).
const (
	tCandidates = iota
	tApplications
	tSessions
	tNotes
	tCheating
	tFraud
	tIdentity
	// The rollups with a row per candidate, computed by the generator for a parallel load (whose
	// rollup triggers are off); a checked load leaves them to the triggers.
	tJourneys
	tMedia
	tScores
	tJobApplicants
	numBig
)

// numSource is the number of big tables that are not rollups.
const numSource = tJourneys

// The company-level tables, in foreign-key order.
const (
	hCompanies = iota
	hUsers
	hMemberships
	hTemplates
	hJobs
	hGuides
	hQuestions
	hCriteria
	hCoverage
	numHead
)

var bigTables = [numBig]bulkload.Table{
	tCandidates:   {Name: "candidates", Columns: "id, company_id, external_id, first_name, last_name, email, phone, title, location, city, state, postal_code, country, latitude, longitude, skills, employers, education, years_experience, status, created_at, updated_at, search"},
	tApplications: {Name: "applications", Columns: "id, company_id, candidate_id, job_id, external_id, source, status, created_at, updated_at"},
	tSessions:     {Name: "interview_sessions", Columns: "id, company_id, application_id, candidate_id, job_id, status, medium_type, link_token, invited_at, started_at, completed_at, duration_seconds, decision, recruiter_rating, service_rating, recruiter_review, service_review, created_at, updated_at"},
	tNotes:        {Name: "recruiter_notes", Columns: "id, company_id, candidate_id, session_id, author_user_id, body, created_at"},
	tCheating:     {Name: "cheating_evaluations", Columns: "id, company_id, session_id, candidate_id, job_id, cheating_score, eye_tracking_score, head_tracking_score, voice_score, transcript_score, multi_person_score, created_at"},
	tFraud:        {Name: "fraud_verifications", Columns: "id, company_id, candidate_id, session_id, overall_verification_score, disposable_email, voip_phone, vpn_proxy_ip, thin_profile, footprint_anomaly, signals, created_at"},
	tIdentity:     {Name: "identity_verifications", Columns: "id, company_id, candidate_id, session_id, job_id, status, failure_reason, created_at, completed_at"},
	tJourneys:     {Name: "candidate_journeys", Columns: "company_id, candidate_id, entered_at, invited, started, completed, positive, hired, first_completed_at, last_completed_at, completed_n"},
	tMedia:        {Name: "candidate_media", Columns: "company_id, candidate_id, medium_type, first_completed_at, last_completed_at, completed_n"},
	tScores:       {Name: "candidate_scores", Columns: "company_id, candidate_id, max_cheating, min_fraud"},
	// job_applicants has a row per candidate and job, so the generator computes it as the
	// per-candidate rollups (rollup.Generated).
	tJobApplicants: {Name: "job_applicants", Columns: "company_id, job_id, candidate_id, applications"},
}

var headTables = [numHead]bulkload.Table{
	hCompanies:   {Name: "companies", Columns: "id, slug, name, ats_type, ats_credential_fields, hr_suite_account, default_job_status, fraud_detection_enabled, model_cheat_detection_enabled, cheat_threshold, auto_job_import_enabled, decision_sync_fields, kombo_integration_id, kombo_status, features, operations_email, created_at, updated_at"},
	hUsers:       {Name: "users", Columns: "id, email, name, created_at, updated_at"},
	hMemberships: {Name: "company_memberships", Columns: "company_id, user_id, role, created_at"},
	hTemplates:   {Name: "templates", Columns: "id, company_id, type, name, content, created_at, updated_at"},
	hJobs:        {Name: "jobs", Columns: "id, company_id, external_id, interviewer_id, title, external_title, description, status, failure_reason, is_open, is_deleted, enable_identity_verification, resume_fit_template_id, created_by_user_id, generation_options, created_at, updated_at, generated_at, guide_from_template"},
	hGuides:      {Name: "interview_guides", Columns: "id, company_id, job_id, intro, outro, learning_objectives, skills, created_at, updated_at"},
	hQuestions:   {Name: "interview_questions", Columns: "id, company_id, guide_id, position, text, source, skill, answers, tag_name, tag_instructions, template_id, created_at"},
	hCriteria:    {Name: "grading_criteria", Columns: "id, company_id, guide_id, position, name, description, template_id, created_at"},
	hCoverage:    {Name: "ats_coverage_weeks", Columns: "company_id, week_start, ats_type, ats_job_ids, created_at"},
}

// nationalCities draws any city by population.
var nationalCities = func() cumulative {
	var c cumulative
	for i, ct := range cities {
		c.add(i, int64(ct.pop))
	}
	return c
}()

// writeHead encodes the company-level rows of c.
func (c *companyGen) writeHead(b *[numHead]bulkload.Buf) {
	if c.insertCompany {
		w := &b[hCompanies]
		w.Row(18)
		w.UUID(c.id)
		w.Text(c.slug)
		w.Text(c.name)
		w.OptText(c.atsType)
		w.TextArray(c.credFields)
		w.Bool(c.hrSuite)
		w.Text(c.defaultStatus)
		w.Bool(c.fraud)
		w.Bool(c.cheat)
		w.Hundredths(c.threshold)
		w.Bool(c.autoImport)
		sync := []models.SyncField{}
		for _, f := range c.syncFields {
			sync = append(sync, models.SyncField{Field: f[0], Value: f[1]})
		}
		js, _ := json.Marshal(sync)
		w.JSONB(js)
		w.OptText(c.komboID)
		w.OptText(c.komboStatus)
		js, _ = json.Marshal(c.features) // map keys come out sorted
		w.JSONB(js)
		w.OptText(c.opsEmail)
		w.TS(c.createdAt)
		w.TS(c.updatedAt)
	}
	for _, u := range c.users {
		w := &b[hUsers]
		w.Row(5)
		w.UUID(u.id)
		w.Text(u.email)
		w.Text(u.name)
		w.TS(u.createdAt)
		w.TS(u.createdAt)
		w = &b[hMemberships]
		w.Row(4)
		w.UUID(c.id)
		w.UUID(u.id)
		w.Text(string(u.role))
		w.TS(u.createdAt)
	}
	for _, t := range c.templates {
		w := &b[hTemplates]
		w.Row(7)
		w.UUID(t.id)
		w.UUID(c.id)
		w.Text(string(t.typ))
		w.Text(t.name)
		w.JSONB(t.content)
		w.TS(t.createdAt)
		w.TS(t.updatedAt)
	}
	g := newRNG()
	for _, j := range c.jobs {
		w := &b[hJobs]
		w.Row(19)
		w.UUID(j.id)
		w.UUID(c.id)
		w.Text(j.externalID)
		w.Text(c.slug + "-" + j.externalID)
		w.Text(j.title)
		w.Text(j.extTitle)
		w.Text(j.description)
		w.Text(string(j.status))
		w.OptText(j.failure)
		w.Bool(j.isOpen)
		w.Bool(j.isDeleted)
		w.Bool(j.iv)
		w.OptUUID(j.resumeTpl)
		w.OptUUID(j.createdBy)
		w.JSONB(j.genOptions)
		w.TS(j.createdAt)
		w.TS(j.updatedAt)
		w.OptTS(j.generatedAt)
		w.Bool(j.hasGuide && j.guideTpl != nil) // writeGuide copies at least one of its questions
		if j.hasGuide {
			g.seed(c.key, streamJobs, uint64(j.index)|2<<40)
			c.writeGuide(g, j, b)
		}
	}
	if c.writeCoverage {
		c.writeCoverageRows(&b[hCoverage])
	}
}

func (c *companyGen) writeGuide(g *rng, j *genJob, b *[numHead]bulkload.Buf) {
	f := &families[j.family]
	skills := make([]string, 0, 5)
	for _, k := range g.r.Perm(len(f.skills))[:3+g.intn(3)] {
		skills = append(skills, f.skills[k])
	}
	objectives := []string{"Assess " + skills[0], "Assess " + skills[1]}
	if g.chance(0.5) {
		objectives = append(objectives, "Confirm availability and work authorization")
	}
	at := j.generatedAt
	w := &b[hGuides]
	w.Row(9)
	w.UUID(j.guideID)
	w.UUID(c.id)
	w.UUID(j.id)
	w.Text("Hi, thanks for taking the time to interview for the " + j.title + " role at " + c.name + ". This takes about 20 minutes.")
	w.Text("Thank you! The hiring team will review your answers and get back to you soon.")
	w.TextArray(objectives)
	w.TextArray(skills)
	w.TS(at)
	w.TS(at)

	pos := 0
	question := func(text string, source models.QuestionSource, skill string, answers []string, tag, tagInstr string, tpl uuidv) {
		pos++
		q := &b[hQuestions]
		q.Row(12)
		q.UUID(g.id(idPrefix(c.index, uint64(j.index)<<8|uint64(pos))))
		q.UUID(c.id)
		q.UUID(j.guideID)
		q.Int4(pos)
		q.Text(text)
		q.Text(string(source))
		q.OptText(skill)
		q.TextArray(answers)
		q.OptText(tag)
		q.OptText(tagInstr)
		q.OptUUID(tpl)
		q.TS(at)
	}
	if t := j.guideTpl; t != nil {
		for _, text := range t.questions[:1+g.intn(min(3, len(t.questions)))] {
			question(text, models.QuestionSourceAdditional, "", nil, "", "", t.id)
		}
	}
	for _, k := range g.r.Perm(len(f.questions))[:min(len(f.questions), 3+g.intn(4))] {
		question(f.questions[k], models.QuestionSourceGenerated, skills[g.intn(len(skills))], nil, "", "", uuidv{})
	}
	if g.chance(0.2) {
		question("Are you authorized to work in the United States?", models.QuestionSourceAdditional, "", nil, "", "", uuidv{})
	}
	if g.chance(0.15) {
		question("How many years of experience do you have in this kind of role?", models.QuestionSourceStructured, "",
			[]string{"Less than 1", "1-3", "3-5", "More than 5"}, "experience_band", "Tag the band the candidate chose.", uuidv{})
	}
	pos = 0
	criterion := func(name, desc string, tpl uuidv) {
		pos++
		w := &b[hCriteria]
		w.Row(8)
		w.UUID(g.id(idPrefix(c.index, uint64(j.index)<<8|uint64(pos))))
		w.UUID(c.id)
		w.UUID(j.guideID)
		w.Int4(pos)
		w.Text(name)
		w.Text(desc)
		w.OptUUID(tpl)
		w.TS(at)
	}
	for _, k := range g.r.Perm(len(f.criteria))[:2+g.intn(min(3, len(f.criteria)-1))] {
		criterion(f.criteria[k][0], f.criteria[k][1], uuidv{})
	}
	if t := j.guideTpl; t != nil && g.chance(0.6) {
		criterion(t.criteria[0][0], t.criteria[0][1], t.id)
	}
}

// writeCoverageRows writes one row per ISO week of the last 26 weeks (the current week
// included) with the ids of the active jobs the ATS created that week.
func (c *companyGen) writeCoverageRows(w *bulkload.Buf) {
	today := floorDiv(c.asOf, day)
	monday := today - int64((weekday(today)+6)%7)
	for k := int64(25); k >= 0; k-- {
		start := monday - 7*k
		from, to := start*day, (start+7)*day
		ids := []string{}
		for _, a := range c.atsJobs {
			if a.active && a.createdAt >= from && a.createdAt < to {
				ids = append(ids, strconv.Itoa(a.external))
			}
		}
		w.Row(5)
		w.UUID(c.id)
		w.Date(start)
		w.Text(c.atsType)
		w.TextArray(ids)
		w.TS(min(to+6*hour, c.asOf))
	}
}

// sessRow is a generated interview session and its application.
type sessRow struct {
	seq                   uint64 // ordered id prefix
	id, appID             uuidv
	job                   *genJob
	status                models.SessionStatus
	medium                models.MediumType
	decision              models.Decision
	invited, started      int64
	completed             int64
	created, updated      int64
	duration              int
	rRating, sRating      int
	rReview, sReview      string
	token                 [32]byte
	appExt                int64
	appSource             models.ApplicationSource
	appStatus             string
	appCreated, appUpdate int64
}

// worker generates candidates; its scratch space is reused from one candidate to the next.
type worker struct {
	g         *rng
	cand      int // index of the candidate being generated
	sess      []sessRow
	skills    []string
	employers []string
	perm      []int
	rowOrder  []int // the order in which the candidate's sessions are written (w.sess is by invitation)
	scratch   []byte
	email     []byte
	phone     []byte
	loc       []byte
	edu       []byte
	zip       []byte
	ext       []byte
	signals   []byte
	media     []mediaRow
	doc       tsDoc
	tsv       []byte
	agg       rollupAgg // nil unless the worker counts rollup.Generated
	flags     []flagRow // the candidate's cheating evaluations, for flag_last_daily
}

func newWorker(vocab searchVocab) *worker { return &worker{g: newRNG(), doc: tsDoc{vocab: vocab}} }

// searchDoc puts the candidate's search document in w.tsv (see tsDoc): title and skills weigh A,
// employers B, education C and location D. The education is "degree, school" when school is set,
// degree being the length of "degree," at the start of w.edu.
func (w *worker) searchDoc(senior bool, title string, degree int, school string) {
	d := &w.doc
	d.reset()
	d.begin(weightA)
	if senior {
		d.pieceBytes(w.scratch)
	} else {
		d.piece(title)
	}
	d.end()
	d.begin(weightA)
	for _, s := range w.skills {
		d.piece(s)
	}
	d.end()
	d.begin(weightB)
	for _, s := range w.employers {
		d.piece(s)
	}
	d.end()
	d.begin(weightC)
	if school != "" {
		d.pieceBytes(w.edu[:degree])
		d.piece(school)
	} else {
		d.pieceBytes(w.edu)
	}
	d.end()
	d.begin(weightD)
	d.pieceBytes(w.loc)
	d.end()
	w.tsv = d.encode(w.tsv[:0])
}

// sample puts k distinct indices of [0, n) into w.perm.
func (w *worker) sample(n, k int) []int {
	if cap(w.perm) < n {
		w.perm = make([]int, n)
	}
	p := w.perm[:n]
	for i := range p {
		p[i] = i
	}
	k = min(k, n)
	for i := 0; i < k; i++ {
		j := i + w.g.intn(n-i)
		p[i], p[j] = p[j], p[i]
	}
	return p[:k]
}

var genericSkills = []string{"Communication", "Teamwork", "Problem solving", "Time management", "Leadership", "Spanish (bilingual)", "Microsoft Office"}

var mediumTypes = []models.MediumType{models.MediumTypeVideo, models.MediumTypePhone, models.MediumTypeBoth, models.MediumTypePhoneSMS,
	models.MediumTypeSMS, models.MediumTypeWhatsApp, models.MediumTypeExternal, models.MediumTypeNone}

// candidate generates candidate i of c and every row that hangs off it.
func (w *worker) candidate(c *companyGen, i int, out *[numBig]*bulkload.Buf) {
	g := w.g
	g.seed(c.key, streamCandidate, uint64(i))
	id := g.id(idPrefix(c.index, uint64(i)))
	w.cand = i
	fam := g.weighted(c.familyWeights)
	f := &families[fam]
	ci := 0
	if g.chance(0.65) {
		ci = c.homeCities.draw(g)
	} else {
		ci = nationalCities.draw(g)
	}
	ct := &cities[ci]
	// Uniform over a disc of 20 miles around the city centre.
	r, theta := 20*math.Sqrt(g.r.Float64()), 2*math.Pi*g.r.Float64()
	lat := ct.lat + r*math.Cos(theta)/69.0
	lon := ct.lon + r*math.Sin(theta)/(69.0*math.Cos(ct.lat*math.Pi/180))
	lat, lon = math.Round(lat*1e6)/1e6, math.Round(lon*1e6)/1e6
	first, last := g.pick(firstNames), g.pick(lastNames)

	// Sessions first: the candidate's status and timestamps follow from them.
	w.sess = w.sess[:0]
	if c.maxSessions > 0 && !c.anyJob.empty() && !g.chance(noSessionShare) {
		k := min(1+g.poisson(c.sessionsMean), c.maxSessions)
		center := g.between(c.windowStart, c.asOf)
		for j := 0; j < k; j++ {
			w.session(c, fam, ct, center, i, j)
		}
		// By invitation time (insertion sort: a handful of sessions).
		for a := 1; a < len(w.sess); a++ {
			for b := a; b > 0 && w.sess[b].invited < w.sess[b-1].invited; b-- {
				w.sess[b], w.sess[b-1] = w.sess[b-1], w.sess[b]
			}
		}
	}
	// The rows of the sessions and their applications go out newest first, and their ids
	// ascend in that order: the load then finds them sorted for the builds of
	// interview_sessions_company_candidate_idx (company, candidate, created_at DESC),
	// interview_sessions_company_application_idx and both tables' primary keys.
	w.rowOrder = w.rowOrder[:0]
	for k := range w.sess {
		w.rowOrder = append(w.rowOrder, k)
		for b := len(w.rowOrder) - 1; b > 0 && w.sess[w.rowOrder[b]].created > w.sess[w.rowOrder[b-1]].created; b-- {
			w.rowOrder[b], w.rowOrder[b-1] = w.rowOrder[b-1], w.rowOrder[b]
		}
	}
	for p, k := range w.rowOrder {
		s := &w.sess[k]
		s.seq = idPrefix(c.index, uint64(i)*uint64(c.maxSessions+1)+uint64(p))
		s.id.setPrefix(s.seq)
		s.appID.setPrefix(s.seq)
	}

	title := g.pick(f.candTitles)
	yoe := min(f.yoeMax, int(g.r.ExpFloat64()*7))
	senior := f.senior && yoe >= 7 && g.chance(0.6)
	if g.chance(0.04) {
		yoe = -1
	}
	w.skills = w.skills[:0]
	for _, k := range w.sample(len(f.skills), 3+g.intn(6)) {
		w.skills = append(w.skills, f.skills[k])
	}
	if g.chance(0.25) {
		if s := g.pick(genericSkills); !containsString(w.skills, s) {
			w.skills = append(w.skills, s)
		}
	}
	w.employers = w.employers[:0]
	if yoe != 0 {
		for _, k := range w.sample(len(f.employers), 1+g.intn(4)) {
			w.employers = append(w.employers, f.employers[k])
		}
	}
	w.edu = w.edu[:0]
	edu := g.pick(f.education)
	school, degree := "", 0 // degree: the length of "degree," at the start of w.edu
	if n := len(edu); n > 2 && edu[n-2] == '|' {
		w.edu = append(w.edu, edu[:n-2]...)
		w.edu = append(w.edu, ", "...)
		degree = n - 1
		if edu[n-1] == 'U' {
			school = g.pick(universities)
		} else {
			school = g.pick(communityColleges)
		}
		w.edu = append(w.edu, school...)
	} else {
		w.edu = append(w.edu, edu...)
	}
	// E-mail: a few common shapes, mostly with digits so that addresses are nearly unique.
	w.email = w.email[:0]
	hasEmail := !g.chance(0.03)
	if hasEmail {
		switch g.intn(5) {
		case 0:
			w.email = appendLowerLetters(w.email, first)
			w.email = append(w.email, '.')
			w.email = appendLowerLetters(w.email, last)
		case 1:
			w.email = appendLowerLetters(w.email, first)
			w.email = appendLowerLetters(w.email, last)
		case 2:
			w.email = appendLowerLetters(w.email, first[:1])
			w.email = appendLowerLetters(w.email, last)
		case 3:
			w.email = appendLowerLetters(w.email, first)
			w.email = append(w.email, '_')
			w.email = appendLowerLetters(w.email, last)
		default:
			w.email = appendLowerLetters(w.email, first)
			w.email = append(w.email, '.')
			w.email = appendLowerLetters(w.email, last[:1])
		}
		if !g.chance(0.1) {
			w.email = strconv.AppendInt(w.email, int64(1+g.intn(9999)), 10)
		}
		w.email = append(w.email, '@')
		w.email = append(w.email, g.pick(emailDomains)...)
	}
	w.phone = w.phone[:0]
	hasPhone := !g.chance(0.08)
	if hasPhone {
		w.phone = append(w.phone, "+1"...)
		w.phone = strconv.AppendInt(w.phone, int64(ct.areaCodes[g.intn(len(ct.areaCodes))]), 10)
		w.phone = append(w.phone, "55501"...)
		n := g.intn(100)
		w.phone = append(w.phone, byte('0'+n/10), byte('0'+n%10))
	}
	w.zip = append(w.zip[:0], ct.zip3...)
	n := 1 + g.intn(98)
	w.zip = append(w.zip, byte('0'+n/10), byte('0'+n%10))
	w.loc = append(append(append(w.loc[:0], ct.name...), ", "...), ct.state...)

	status := w.candidateStatus()
	var created, updated int64
	if len(w.sess) > 0 {
		firstAt, lastAt := w.sess[0].appCreated, int64(0)
		for k := range w.sess {
			firstAt = min(firstAt, w.sess[k].appCreated)
			lastAt = max(lastAt, w.sess[k].updated)
		}
		created = max(c.asOf-730*day, firstAt-g.between(0, 60*day))
		updated = min(c.asOf, lastAt+g.between(0, 20*day))
	} else {
		created = g.between(c.asOf-730*day, c.asOf-day)
		updated = g.between(created, c.asOf)
	}

	if w.agg != nil {
		w.agg.of(c).candidate(status, created)
	}
	if b := out[tCandidates]; b != nil {
		b.Row(23)
		b.UUID(id)
		b.UUID(c.id)
		w.ext = strconv.AppendInt(w.ext[:0], c.firstCandidate+int64(i), 10)
		b.TextBytes(w.ext)
		b.Text(first)
		b.Text(last)
		if hasEmail {
			b.TextBytes(w.email)
		} else {
			b.Null()
		}
		if hasPhone {
			b.TextBytes(w.phone)
		} else {
			b.Null()
		}
		if senior {
			w.scratch = append(append(w.scratch[:0], "Senior "...), title...)
			b.TextBytes(w.scratch)
		} else {
			b.Text(title)
		}
		b.TextBytes(w.loc)
		b.Text(ct.name)
		b.Text(ct.state)
		b.TextBytes(w.zip)
		b.Text("US")
		b.Float8(lat)
		b.Float8(lon)
		b.TextArray(w.skills)
		b.TextArray(w.employers)
		b.TextBytes(w.edu)
		b.OptInt4(yoe)
		b.Text(status)
		b.TS(created)
		b.TS(updated)
		w.searchDoc(senior, title, degree, school)
		b.Binary(w.tsv)
	}
	if w.agg == nil && onlyCandidates(out) {
		// The rest writes other tables; each candidate draws from its own stream, so skipping
		// it changes no other candidate.
		return
	}
	for _, k := range w.rowOrder {
		s := &w.sess[k]
		if w.agg != nil {
			w.agg.of(c).session(s)
		}
		if b := out[tApplications]; b != nil {
			b.Row(9)
			b.UUID(s.appID)
			b.UUID(c.id)
			b.UUID(id)
			b.UUID(s.job.id)
			if s.appExt != 0 {
				w.ext = strconv.AppendInt(w.ext[:0], s.appExt, 10)
				b.TextBytes(w.ext)
			} else {
				b.Null()
			}
			b.Text(string(s.appSource))
			b.Text(s.appStatus)
			b.TS(s.appCreated)
			b.TS(s.appUpdate)
		}
		if b := out[tSessions]; b != nil {
			b.Row(19)
			b.UUID(s.id)
			b.UUID(c.id)
			b.UUID(s.appID)
			b.UUID(id)
			b.UUID(s.job.id)
			b.Text(string(s.status))
			b.Text(string(s.medium))
			b.TextBytes(s.token[:])
			b.TS(s.invited)
			b.OptTS(s.started)
			b.OptTS(s.completed)
			b.OptInt4(s.duration)
			b.Text(string(s.decision))
			b.OptHundredths(s.rRating)
			b.OptHundredths(s.sRating)
			b.OptText(s.rReview)
			b.OptText(s.sReview)
			b.TS(s.created)
			b.TS(s.updated)
		}
	}
	// The integrity checks and notes draw after everything above, in this order.
	maxCheating, minFraud := -1, -1
	w.flags = w.flags[:0]
	if c.cheat {
		for k := range w.sess {
			if w.sess[k].status == models.SessionStatusCompleted && g.chance(0.92) {
				score, created, evID := w.cheating(c, id, &w.sess[k], out[tCheating])
				maxCheating = max(maxCheating, score)
				if w.agg != nil {
					w.agg.of(c).evaluation(w.sess[k].job, created, score)
					w.flags = append(w.flags, flagRow{created: created, id: evID, floor: score / 100})
				}
			}
		}
		if w.agg != nil {
			w.agg.of(c).cheatingSteps(w.flags)
		}
	}
	if c.fraud && len(w.sess) > 0 && g.chance(0.95) {
		minFraud = w.fraud(c, id, ct, out[tFraud])
	}
	for k := range w.sess {
		if w.sess[k].job.iv {
			w.identity(c, id, &w.sess[k], out[tIdentity])
		}
	}
	if len(w.sess) > 0 && !c.authors.empty() && g.chance(0.35) {
		for n := range 1 + g.weighted([]int{60, 30, 10}) {
			w.note(c, id, f, n, out[tNotes])
		}
	}
	w.rollups(c, id, maxCheating, minFraud, out)
}

// onlyCandidates reports whether out asks for the candidates' rows alone (the generator of a
// parallel load that feeds the candidates).
func onlyCandidates(out *[numBig]*bulkload.Buf) bool {
	for t := range numBig {
		if t != tCandidates && out[t] != nil {
			return false
		}
	}
	return true
}

// rollups writes the candidate's rows of the per-candidate rollups from its sessions (each with
// its application) and the extremes of its cheating and fraud scores (-1 for none), as the
// rollups' rebuild (rollup_rebuild) computes them.
func (w *worker) rollups(c *companyGen, id uuidv, maxCheating, minFraud int, out *[numBig]*bulkload.Buf) {
	if b := out[tJourneys]; b != nil && len(w.sess) > 0 {
		entered := int64(math.MaxInt64)
		var started, completed, positive, hired bool
		var first, last int64
		n := 0
		for k := range w.sess {
			s := &w.sess[k]
			entered = min(entered, s.appCreated, s.invited)
			started = started || s.started != 0 || s.status == models.SessionStatusStarted || s.status == models.SessionStatusCompleted
			if s.status == models.SessionStatusCompleted {
				if n == 0 || s.completed < first {
					first = s.completed
				}
				if n == 0 || s.completed > last {
					last = s.completed
				}
				completed = true
				n++
			}
			switch s.decision {
			case models.DecisionAccepted, models.DecisionSubmitted, models.DecisionPlaced:
				positive = true
			case models.DecisionHired:
				positive, hired = true, true
			}
		}
		if w.agg != nil {
			w.agg.of(c).journey(entered, started, completed, positive, hired, last, n)
		}
		b.Row(11)
		b.UUID(c.id)
		b.UUID(id)
		b.TS(entered)
		b.Bool(true)
		b.Bool(started)
		b.Bool(completed)
		b.Bool(positive)
		b.Bool(hired)
		b.OptTS(first)
		b.OptTS(last)
		b.Int4(n)
	}
	if b := out[tMedia]; b != nil {
		w.media = w.media[:0]
	sessions:
		for k := range w.sess {
			s := &w.sess[k]
			if s.status != models.SessionStatusCompleted {
				continue
			}
			for m := range w.media {
				if r := &w.media[m]; r.medium == s.medium {
					r.first, r.last, r.n = min(r.first, s.completed), max(r.last, s.completed), r.n+1
					continue sessions
				}
			}
			w.media = append(w.media, mediaRow{medium: s.medium, first: s.completed, last: s.completed, n: 1})
		}
		// In key order (company, candidate, medium), so that the build of the primary key after
		// the load finds the rows sorted.
		for a := 1; a < len(w.media); a++ {
			for b := a; b > 0 && w.media[b].medium < w.media[b-1].medium; b-- {
				w.media[b], w.media[b-1] = w.media[b-1], w.media[b]
			}
		}
		for _, r := range w.media {
			if w.agg != nil {
				w.agg.of(c).media(r.medium)
			}
			b.Row(6)
			b.UUID(c.id)
			b.UUID(id)
			b.Text(string(r.medium))
			b.TS(r.first)
			b.TS(r.last)
			b.Int4(r.n)
		}
	}
	if b := out[tScores]; b != nil && (maxCheating >= 0 || minFraud >= 0) {
		if w.agg != nil {
			w.agg.of(c).scores(maxCheating, minFraud)
		}
		b.Row(4)
		b.UUID(c.id)
		b.UUID(id)
		b.OptHundredths(maxCheating)
		b.OptHundredths(minFraud)
	}
	if b := out[tJobApplicants]; b != nil {
		// Each session has its own application; a candidate may apply to a job more than once.
	jobs:
		for k := range w.sess {
			job := w.sess[k].job
			for e := range k {
				if w.sess[e].job == job {
					continue jobs
				}
			}
			n := 1
			for e := k + 1; e < len(w.sess); e++ {
				if w.sess[e].job == job {
					n++
				}
			}
			if w.agg != nil {
				w.agg.of(c).applicant(job)
			}
			b.Row(4)
			b.UUID(c.id)
			b.UUID(job.id)
			b.UUID(id)
			b.Int8(int64(n))
		}
	}
}

// mediaRow is a candidate's completions by one medium.
type mediaRow struct {
	medium      models.MediumType
	first, last int64
	n           int
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// session appends session j of candidate i to w.sess.
func (w *worker) session(c *companyGen, fam int, ct *city, center int64, i, j int) {
	g := w.g
	var job *genJob
	if byFam := &c.jobsByFamily[fam]; !byFam.empty() && g.chance(0.92) {
		job = c.jobs[byFam.draw(g)]
	} else {
		job = c.jobs[c.anyJob.draw(g)]
	}
	seq := idPrefix(c.index, uint64(i)*uint64(c.maxSessions+1)+uint64(j))
	s := sessRow{seq: seq, id: g.id(seq), appID: g.id(seq), job: job, duration: -1, rRating: -1, sRating: -1}
	g.hex32(&s.token)
	lo, hi := max(job.sessionsFrom, c.windowStart), c.asOf-30*minute
	target := min(max(center+int64(g.norm(0, 20)*float64(day)), lo), hi)
	z := ct.tz
	d := z.localDay(target)
	if wd := weekday(d); wd == 0 && g.chance(0.7) {
		d -= 2
	} else if wd == 6 && g.chance(0.7) {
		d--
	}
	s.invited = z.at(d, g.timeOfDay(inviteHours))
	for s.invited > hi {
		s.invited -= day
	}
	if s.invited < lo {
		s.invited = g.between(lo, hi)
	}
	age := c.asOf - s.invited

	statuses := []models.SessionStatus{models.SessionStatusInvited, models.SessionStatusStarted, models.SessionStatusCompleted,
		models.SessionStatusExpired, models.SessionStatusCancelled}
	switch {
	case age < 2*day:
		s.status = statuses[g.weighted([]int{45, 10, 40, 0, 5})]
	case age < 7*day:
		s.status = statuses[g.weighted([]int{15, 4, 70, 5, 6})]
	default:
		s.status = statuses[g.weighted([]int{2, 1, 72, 18, 7})]
	}
	mw := []int{44, 24, 8, 7, 6, 6, 3, 2}
	if !c.features[models.FeatureWhatsAppChannel] {
		mw[4], mw[5] = mw[4]+mw[5], 0
	}
	s.medium = mediumTypes[g.weighted(mw)]

	started := s.status == models.SessionStatusStarted || s.status == models.SessionStatusCompleted ||
		s.status == models.SessionStatusExpired && g.chance(0.25)
	if started {
		switch p := g.r.Float64(); {
		case p < 0.35:
			s.started = s.invited + g.between(2*minute, hour)
		default:
			dd := g.between(0, 1)
			if p >= 0.7 {
				dd = g.between(1, 5)
			}
			s.started = z.at(z.localDay(s.invited)+dd, g.timeOfDay(candidateHours))
			if s.started <= s.invited {
				s.started += day
			}
		}
		s.duration = duration(g, s.medium)
		if s.status == models.SessionStatusCompleted || s.status == models.SessionStatusExpired {
			if s.started+int64(s.duration)*second > c.asOf {
				s.started = s.invited + g.between(2*minute, 30*minute)
			}
			if s.started+int64(s.duration)*second > c.asOf {
				s.status = models.SessionStatusStarted
			}
		}
		if s.started > c.asOf {
			s.started, s.status = 0, models.SessionStatusInvited
		}
		if s.status == models.SessionStatusCompleted {
			s.completed = s.started + int64(s.duration)*second
		} else {
			s.duration = -1
		}
	}

	s.decision = models.DecisionNone
	switch s.status {
	case models.SessionStatusCompleted:
		dw := []int{34, 18, 35, 8, 3, 2}
		if age < 3*day {
			dw = []int{70, 10, 10, 5, 3, 2}
		}
		s.decision = []models.Decision{models.DecisionNone, models.DecisionAccepted, models.DecisionRejected, models.DecisionSubmitted,
			models.DecisionPlaced, models.DecisionHired}[g.weighted(dw)]
		if g.chance(0.35) {
			switch s.decision {
			case models.DecisionHired, models.DecisionPlaced, models.DecisionAccepted:
				s.rRating = 50 * int(g.between(8, 10))
			case models.DecisionSubmitted:
				s.rRating = 50 * int(g.between(7, 10))
			case models.DecisionRejected:
				s.rRating = 50 * int(g.between(2, 6))
			default:
				s.rRating = 50 * int(g.between(4, 10))
			}
			if g.chance(0.5) {
				s.rReview = g.pick(recruiterReviews)
			}
		}
		if g.chance(0.25) {
			s.sRating = 100 * (5 - g.weighted([]int{45, 30, 13, 7, 5}))
			if g.chance(0.4) {
				s.sReview = g.pick(serviceReviews)
			}
		}
	case models.SessionStatusExpired, models.SessionStatusCancelled:
		if g.chance(0.15) {
			s.decision = models.DecisionRejected
		}
	}

	s.created = s.invited - g.between(0, 60*second)
	s.updated = max(s.invited, s.started, s.completed)
	if s.decision != models.DecisionNone {
		s.updated = min(c.asOf, s.updated+g.between(hour, 3*day))
	}

	sources := []models.ApplicationSource{models.ApplicationSourceATS, models.ApplicationSourcePartner, models.ApplicationSourceHRSuiteWebhook,
		models.ApplicationSourceManual, models.ApplicationSourceAssessment}
	sw := []int{45, 18, 15, 15, 5}
	if c.atsType == "" {
		sw[0], sw[3] = 0, sw[3]+sw[0]
	}
	if !c.hrSuite {
		sw[2] = 0
	}
	s.appSource = sources[g.weighted(sw)]
	if s.appSource != models.ApplicationSourceManual || g.chance(0.4) {
		s.appExt = 20_000_000 + int64(i)*int64(c.maxSessions+1) + int64(j)
	}
	s.appCreated = max(job.createdAt+minute, s.invited-g.between(5*minute, 2*day))
	s.appCreated = min(s.appCreated, s.created)
	s.appUpdate = s.updated
	s.appStatus = applicationStatus(s.status, s.decision)
	w.sess = append(w.sess, s)
}

// duration draws an interview's length in seconds.
func duration(g *rng, m models.MediumType) int {
	clamp := func(v float64, lo, hi int) int { return min(max(int(v), lo), hi) }
	switch m {
	case models.MediumTypeVideo:
		return clamp(g.norm(1500, 320), 600, 2700)
	case models.MediumTypePhone:
		return clamp(g.norm(1000, 260), 420, 2100)
	case models.MediumTypeBoth:
		return clamp(g.norm(1400, 300), 600, 2700)
	case models.MediumTypeExternal:
		return clamp(g.norm(2400, 700), 900, 5400)
	case models.MediumTypeNone:
		return int(g.between(300, 900))
	default: // text conversations stretch out
		return int(math.Exp(math.Log(600) + g.r.Float64()*(math.Log(14400)-math.Log(600))))
	}
}

func applicationStatus(s models.SessionStatus, d models.Decision) string {
	switch d {
	case models.DecisionHired:
		return "hired"
	case models.DecisionPlaced:
		return "placed"
	case models.DecisionRejected:
		return "rejected"
	case models.DecisionAccepted, models.DecisionSubmitted:
		return "advanced"
	}
	switch s {
	case models.SessionStatusCompleted:
		return "interviewed"
	case models.SessionStatusExpired:
		return "no_response"
	case models.SessionStatusCancelled:
		return "withdrawn"
	}
	return "invited"
}

// candidateStatus derives the pipeline status of the candidate from its sessions.
func (w *worker) candidateStatus() string {
	g := w.g
	var hired, advanced, open, rejected, completed bool
	for k := range w.sess {
		s := &w.sess[k]
		switch s.decision {
		case models.DecisionHired, models.DecisionPlaced:
			hired = true
		case models.DecisionAccepted, models.DecisionSubmitted:
			advanced = true
		case models.DecisionRejected:
			rejected = true
		}
		switch s.status {
		case models.SessionStatusInvited, models.SessionStatusStarted:
			open = true
		case models.SessionStatusCompleted:
			completed = true
		}
	}
	pick := func(names []string, weights []int) string { return names[g.weighted(weights)] }
	switch {
	case len(w.sess) == 0:
		return pick([]string{"new", "screening", "rejected", "withdrawn"}, []int{70, 15, 10, 5})
	case hired:
		return pick([]string{"hired", "offered"}, []int{85, 15})
	case advanced:
		return pick([]string{"offered", "interviewing"}, []int{20, 80})
	case open:
		return pick([]string{"interviewing", "screening"}, []int{60, 40})
	case rejected:
		return pick([]string{"rejected", "withdrawn"}, []int{85, 15})
	case completed:
		return pick([]string{"interviewing", "screening", "rejected"}, []int{50, 30, 20})
	}
	return pick([]string{"withdrawn", "screening", "rejected"}, []int{50, 25, 25})
}

func (w *worker) cheating(c *companyGen, candidate uuidv, s *sessRow, b *bulkload.Buf) (score int, created int64, id uuidv) {
	g := w.g
	thr := c.threshold
	switch p := g.r.Float64(); {
	case p < 0.07: // flagged
		score = int(g.between(int64(thr), 9999))
	case p < 0.15: // close to the line
		score = int(g.between(int64(max(0, thr-1500)), int64(max(0, thr-1))))
	default:
		u := g.r.Float64()
		score = int(u * u * float64(min(thr, 5000)))
	}
	flagged := score >= thr
	dominant := g.intn(5)
	sub := func(k int, measured bool) int {
		if !measured {
			return -1
		}
		v := float64(score) + g.norm(0, 1200)
		if flagged && k == dominant {
			v = float64(score) + float64(g.between(0, 2000))
		}
		return min(max(int(v), 0), 10000)
	}
	video := s.medium == models.MediumTypeVideo || s.medium == models.MediumTypeBoth || s.medium == models.MediumTypeExternal
	voice := video || s.medium == models.MediumTypePhone || s.medium == models.MediumTypePhoneSMS
	id = g.id(s.seq)
	eye, head, vo, transcript, multi := sub(0, video), sub(1, video), sub(2, voice), sub(3, true), sub(4, video)
	created = min(c.asOf, s.completed+g.between(minute, 5*minute))
	if b == nil {
		return score, created, id
	}
	b.Row(12)
	b.UUID(id)
	b.UUID(c.id)
	b.UUID(s.id)
	b.UUID(candidate)
	b.UUID(s.job.id)
	b.Hundredths(score)
	b.OptHundredths(eye)
	b.OptHundredths(head)
	b.OptHundredths(vo)
	b.OptHundredths(transcript)
	b.OptHundredths(multi)
	b.TS(created)
	return score, created, id
}

func (w *worker) fraud(c *companyGen, candidate uuidv, ct *city, b *bulkload.Buf) (score int) {
	g := w.g
	s := &w.sess[0]
	id := g.id(idPrefix(c.index, uint64(w.cand)))
	var p float64
	switch r := g.r.Float64(); {
	case r < 0.08:
		score, p = int(g.between(500, 4999)), 0.55
	case r < 0.2:
		score, p = int(g.between(5000, 7499)), 0.2
	default:
		score, p = int(g.between(7500, 9900)), 0.03
	}
	disposable, voip, vpn, thin, footprint := g.chance(p*0.6), g.chance(p*0.8), g.chance(p*0.7), g.chance(p*1.3), g.chance(p)
	lineType := "mobile"
	switch {
	case voip:
		lineType = "voip"
	case g.chance(0.06):
		lineType = "landline"
	}
	carrier := g.pick(phoneCarriers[:5])
	if voip {
		carrier = g.pick(phoneCarriers[5:])
	}
	ipType := "residential"
	if vpn {
		ipType = []string{"vpn", "proxy", "datacenter"}[g.intn(3)]
	} else if g.chance(0.15) {
		ipType = "mobile"
	}
	emailAge := g.between(400, 5000)
	if disposable {
		emailAge = g.between(0, 30)
	}
	profileYears := g.between(2, 15)
	linkedin := !thin || g.chance(0.2)
	if thin {
		profileYears = g.between(0, 1)
	}
	footprintScore := g.between(55, 98)
	if footprint {
		footprintScore = g.between(5, 45)
	}
	created := min(c.asOf, s.invited+g.between(30*second, 5*minute))
	if b == nil {
		return
	}
	js := append(w.signals[:0], `{"emailAgeDays":`...)
	js = strconv.AppendInt(js, emailAge, 10)
	js = append(js, `,"emailDisposable":`...)
	js = strconv.AppendBool(js, disposable)
	js = append(js, `,"phoneLineType":"`...)
	js = append(js, lineType...)
	js = append(js, `","phoneCarrier":"`...)
	js = append(js, carrier...)
	js = append(js, `","ipType":"`...)
	js = append(js, ipType...)
	js = append(js, `","ipCountry":"US","ipCity":"`...)
	js = append(js, ct.name...)
	js = append(js, `","linkedinProfileFound":`...)
	js = strconv.AppendBool(js, linkedin)
	js = append(js, `,"profileAgeYears":`...)
	js = strconv.AppendInt(js, profileYears, 10)
	js = append(js, `,"footprintScore":`...)
	js = strconv.AppendInt(js, footprintScore, 10)
	js = append(js, '}')
	w.signals = js
	if w.agg != nil {
		w.agg.of(c).fraud(created, score, disposable, voip, vpn, thin, footprint)
	}
	b.Row(12)
	b.UUID(id)
	b.UUID(c.id)
	b.UUID(candidate)
	b.UUID(s.id)
	b.Hundredths(score)
	b.Bool(disposable)
	b.Bool(voip)
	b.Bool(vpn)
	b.Bool(thin)
	b.Bool(footprint)
	b.JSONB(js)
	b.TS(created)
	return score
}

var identityStatuses = []models.IdentityStatus{models.IdentityStatusPending, models.IdentityStatusVerified, models.IdentityStatusFailed, models.IdentityStatusExpired}

func (w *worker) identity(c *companyGen, candidate uuidv, s *sessRow, b *bulkload.Buf) {
	g := w.g
	var weights []int // PENDING, VERIFIED, FAILED, EXPIRED; nil: no verification
	switch s.status {
	case models.SessionStatusInvited:
		if g.chance(0.3) {
			weights = []int{1, 0, 0, 0}
		}
	case models.SessionStatusStarted:
		weights = []int{40, 60, 0, 0}
	case models.SessionStatusCompleted:
		weights = []int{0, 86, 9, 5}
	case models.SessionStatusExpired:
		weights = []int{0, 25, 25, 50}
	case models.SessionStatusCancelled:
		if g.chance(0.4) {
			weights = []int{0, 0, 1, 0}
		}
	}
	if weights == nil {
		return
	}
	id := g.id(s.seq)
	st := identityStatuses[g.weighted(weights)]
	created := s.invited + g.between(minute, 10*minute)
	if s.started != 0 {
		created = s.started - g.between(minute, 4*minute)
	}
	created = min(max(created, s.invited), c.asOf)
	var completed int64
	reason := ""
	switch st {
	case models.IdentityStatusVerified:
		completed = created + g.between(30*second, 8*minute)
	case models.IdentityStatusFailed:
		completed = created + g.between(30*second, 8*minute)
		k := []int{}
		for _, r := range identityFailureReasons {
			k = append(k, r.weight)
		}
		reason = identityFailureReasons[g.weighted(k)].reason
	}
	completed = min(completed, c.asOf)
	if w.agg != nil {
		w.agg.of(c).identity(created, st, reason)
	}
	if b == nil {
		return
	}
	b.Row(9)
	b.UUID(id)
	b.UUID(c.id)
	b.UUID(candidate)
	b.UUID(s.id)
	b.UUID(s.job.id)
	b.Text(string(st))
	b.OptText(reason)
	b.TS(created)
	b.OptTS(completed)
}

func (w *worker) note(c *companyGen, candidate uuidv, f *family, n int, b *bulkload.Buf) {
	g := w.g
	id := g.id(idPrefix(c.index, uint64(w.cand)<<2|uint64(n)))
	author := c.users[c.authors.draw(g)]
	var s *sessRow
	if g.chance(0.8) {
		s = &w.sess[g.intn(len(w.sess))]
		for k := range w.sess { // prefer a completed interview
			if w.sess[k].status == models.SessionStatusCompleted && g.chance(0.5) {
				s = &w.sess[k]
			}
		}
	}
	after := w.sess[len(w.sess)-1].invited
	if s != nil {
		after = max(s.invited, s.completed)
	}
	created := min(c.asOf, after+g.between(10*minute, 3*day))
	w.scratch = w.scratch[:0]
	switch g.intn(3) {
	case 0:
		w.scratch = append(w.scratch, g.pick(f.notes)...)
	case 1:
		w.scratch = append(w.scratch, g.pick(genericNotes)...)
	default:
		w.scratch = append(w.scratch, g.pick(f.notes)...)
		w.scratch = append(w.scratch, ' ')
		w.scratch = append(w.scratch, g.pick(genericNotes)...)
	}
	if b == nil {
		return
	}
	b.Row(7)
	b.UUID(id)
	b.UUID(c.id)
	b.UUID(candidate)
	if s != nil {
		b.UUID(s.id)
	} else {
		b.Null()
	}
	b.UUID(author.id)
	b.TextBytes(w.scratch)
	b.TS(created)
}
