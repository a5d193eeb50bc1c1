package seed

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/recruitd/recruitd/internal/ats"
	"github.com/recruitd/recruitd/models"
)

// firstJobExternalID is the ATS id of a seeded company's oldest job. Job ids of seeded
// companies are numbered from it in creation order whatever the seed, so a company holding
// seeded data is recognised by a job with this id (hasSeededData).
const firstJobExternalID = 100001

// companyGen is everything about one company that candidates are generated from.
type companyGen struct {
	index  int // 1-based; 1 is the demo tenant
	key    uint64
	id     uuidv
	slug   string
	name   string
	ind    industry
	domain string // e-mail domain of its users

	// Flags and settings (for the demo tenant: read from its row).
	atsType        string
	credFields     []string
	hrSuite        bool
	defaultStatus  string
	fraud, cheat   bool
	threshold      int // cheat threshold in hundredths
	autoImport     bool
	syncFields     [][2]string
	komboID        string
	komboStatus    string
	features       map[string]bool
	opsEmail       string
	createdAt      int64
	updatedAt      int64
	ivRate         float64
	insertCompany  bool // false for the demo tenant, whose row Demo made
	writeCoverage  bool
	homeCities     cumulative
	familyWeights  []int
	users          []*genUser
	authors        cumulative // users who create jobs and write notes, by activity
	templates      []*genTemplate
	jobs           []*genJob
	atsJobs        []atsJob // the ATS's own job list: imported jobs and the others
	jobsByFamily   [numFamilies]cumulative
	anyJob         cumulative
	candidates     int
	perJob         int     // candidates per job
	sessionsMean   float64 // mean of the Poisson part of a candidate's session count
	maxSessions    int
	asOf           int64
	windowStart    int64 // asOf minus 12 months
	firstCandidate int64 // candidates' ATS ids start here
}

type genUser struct {
	id        uuidv
	name      string
	email     string
	role      models.MembershipRole
	createdAt int64
}

type genTemplate struct {
	id        uuidv
	typ       models.TemplateType
	name      string
	content   []byte
	createdAt int64
	updatedAt int64
	questions []string    // interviewGuide templates
	criteria  [][2]string // interviewGuide templates
}

type genJob struct {
	index        int
	id           uuidv
	externalID   string
	family       int
	title        string
	extTitle     string
	description  string
	status       models.JobStatus
	failure      string
	isOpen       bool
	isDeleted    bool
	iv           bool
	resumeTpl    uuidv
	createdBy    uuidv
	genOptions   []byte
	createdAt    int64
	updatedAt    int64
	generatedAt  int64
	hasGuide     bool
	guideID      uuidv
	guideTpl     *genTemplate // interviewGuide template its guide copied from, if any
	homeCity     int
	sessionsFrom int64 // earliest invitation
}

type atsJob struct {
	createdAt int64
	active    bool
	job       *genJob // nil: never imported into the service
	external  int
}

// companyName returns the name and industry of generated company index (>= 2). It depends on
// the seed and the index only, not on how many companies are generated.
func companyName(seed uint64, index int) (string, industry) {
	g := newRNG()
	g.seed(seed, streamNames, 0)
	perm := g.r.Perm(len(companyNames))
	k := index - 2
	entry := companyNames[perm[k%len(companyNames)]]
	name := entry.name
	if round := k / len(companyNames); round > 0 {
		name += " " + regionSuffixes[(round-1)%len(regionSuffixes)]
		if extra := (round - 1) / len(regionSuffixes); extra > 0 {
			name += " " + strconv.Itoa(extra+1)
		}
	}
	return name, entry.ind
}

// slugify makes a company slug from a name: lowercase letters and digits joined by dashes.
func slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	s := b.String()
	if len(s) > 63 {
		s = strings.TrimRight(s[:63], "-")
	}
	return s
}

// companyKey is the PRNG key of company index under seed.
func companyKey(seed uint64, index int) uint64 {
	return mix64(seed ^ mix64(0x5eed0000+uint64(index)))
}

// planCompany draws a generated company's identity and settings (index >= 2).
func planCompany(seed uint64, index int, o *ScaleOptions, asOf int64) *companyGen {
	c := &companyGen{index: index, key: companyKey(seed, index), insertCompany: true}
	c.name, c.ind = companyName(seed, index)
	c.slug = slugify(c.name)
	c.domain = c.slug + ".example.com"
	g := newRNG()
	g.seed(c.key, streamCompany, 0)
	c.id = g.id(idPrefix(index, 0))
	c.fraud = g.chance(0.55)
	c.cheat = g.chance(0.6)
	c.threshold = []int{60, 65, 70, 70, 75, 80, 85}[g.intn(7)] * 100
	c.features = map[string]bool{
		models.FeatureResumeFit:       g.chance(0.7),
		models.FeatureTalentMatch:     g.chance(0.4),
		models.FeatureCoordinator:     g.chance(0.5),
		models.FeatureWhatsAppChannel: g.chance(0.35),
		models.FeatureCustomLogo:      g.chance(0.3),
	}
	types := []string{"ATS-A", "ATS-B", "ATS-C", "ATS-D", ""}
	c.atsType = types[g.weighted([]int{30, 25, 20, 10, 15})]
	if c.atsType != "" {
		fields := ats.ExpectedCredentialFields(models.ATSType(c.atsType))
		if len(fields) == 0 {
			fields = []string{ats.FieldBaseURL, ats.FieldAPIKey}
		}
		switch n := g.r.Float64(); {
		case n < 0.75:
			c.credFields = fields
		case n < 0.9:
			c.credFields = fields[:len(fields)-1]
		}
	}
	c.hrSuite = g.chance(0.3)
	if c.hrSuite || g.chance(0.2) {
		c.komboID = fmt.Sprintf("kmb_%012x", g.r.Uint64()&0xffffffffffff)
		c.komboStatus = komboStatuses[g.intn(len(komboStatuses))]
	}
	c.autoImport = len(c.credFields) > 0 && g.chance(0.6)
	if g.chance(0.55) {
		c.syncFields = decisionSyncPresets[g.intn(len(decisionSyncPresets))]
	}
	c.defaultStatus = "ACTIVE"
	if g.chance(0.15) {
		c.defaultStatus = "PAUSED"
	}
	if g.chance(0.8) {
		c.opsEmail = "ops@" + c.domain
	}
	c.createdAt = asOf - g.between(400, 1100)*day - g.between(0, day)
	c.updatedAt = asOf - g.between(0, 30)*day - g.between(0, day)
	c.ivRate = []float64{0, 0.1, 0.25, 0.4}[g.intn(4)]
	c.finishPlan(g, o, asOf)
	return c
}

// planDemo plans the demo tenant (company 1) from its row.
func planDemo(seed uint64, co *models.Company, o *ScaleOptions, asOf int64) *companyGen {
	c := &companyGen{index: 1, key: companyKey(seed, 1), id: uuidv(co.ID), slug: co.Slug, name: co.Name, ind: indStaffing}
	c.domain = co.Slug + ".example.com"
	if co.ATSType != nil {
		c.atsType = string(*co.ATSType)
	}
	c.credFields = co.ATSCredentialFields
	c.hrSuite = co.HRSuiteAccount
	c.fraud, c.cheat = co.FraudDetectionEnabled, co.ModelCheatDetectionEnabled
	c.threshold = int(math.Round(co.CheatThreshold * 100))
	c.autoImport = co.AutoJobImportEnabled
	c.features = co.Features.V
	if c.features == nil {
		c.features = map[string]bool{}
	}
	c.ivRate = 0.3
	c.writeCoverage = c.atsType != ""
	g := newRNG()
	g.seed(c.key, streamCompany, 0)
	g.id(0) // the id a freshly created demo tenant gets (demoCompanyID)
	c.finishPlan(g, o, asOf)
	return c
}

// demoCompanyID is the id given to the demo tenant when Scale creates it.
func demoCompanyID(seed uint64) uuidv {
	g := newRNG()
	g.seed(companyKey(seed, 1), streamCompany, 0)
	return g.id(idPrefix(1, 0))
}

func (c *companyGen) finishPlan(g *rng, o *ScaleOptions, asOf int64) {
	c.asOf = asOf
	c.windowStart = asOf - 365*day
	c.candidates, c.perJob = o.Candidates, cmp.Or(o.CandidatesPerJob, DefaultCandidatesPerJob)
	c.firstCandidate = 5_000_001
	if s := float64(o.SessionsPerCandidate); s > 0 {
		c.sessionsMean = s/(1-noSessionShare) - 1
		c.maxSessions = 3*o.SessionsPerCandidate + 5
	}
	c.familyWeights = c.ind.weights[:]
	// Home metros: most candidates live near the company's offices.
	var all cumulative
	for i, ct := range cities {
		all.add(i, int64(ct.pop))
	}
	n := 3 + g.intn(5)
	picked := map[int]bool{}
	for len(picked) < n {
		i := all.draw(g)
		if !picked[i] {
			picked[i] = true
			c.homeCities.add(i, int64(cities[i].pop)+200)
		}
	}
}

// noSessionShare is the share of a pool's candidates who were never invited.
const noSessionShare = 0.08

// buildCompany draws the company's users, templates and jobs.
func (c *companyGen) buildCompany() {
	c.buildUsers()
	c.buildTemplates()
	c.buildJobs()
}

func (c *companyGen) buildUsers() {
	g := newRNG()
	g.seed(c.key, streamUsers, 0)
	n := min(max(4, 3+c.candidates/25000), 40)
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		first, last := g.pick(firstNames), g.pick(lastNames)
		local := asciiLower(first) + "." + asciiLower(last)
		email := local + "@" + c.domain
		for k := 2; seen[email]; k++ {
			email = local + strconv.Itoa(k) + "@" + c.domain
		}
		seen[email] = true
		role := models.MembershipRoleRecruiter
		switch {
		case i == 0, i == 1 && n > 8:
			role = models.MembershipRoleAdmin
		case i == n-1 && n > 5:
			role = models.MembershipRoleViewer
		}
		u := &genUser{id: g.id(idPrefix(c.index, uint64(i))), name: first + " " + last, email: email, role: role}
		u.createdAt = g.between(max(c.createdAt, c.asOf-900*day), c.asOf-60*day)
		c.users = append(c.users, u)
		if role != models.MembershipRoleViewer {
			// A few recruiters do most of the work.
			c.authors.add(i, int64(1000/(i+1)))
		}
	}
}

func (c *companyGen) buildTemplates() {
	g := newRNG()
	g.seed(c.key, streamTemplates, 0)
	nFit := 2 + g.intn(4)
	if !c.features[models.FeatureResumeFit] {
		nFit = g.intn(2)
	}
	for _, i := range g.r.Perm(len(resumeFitTemplateNames))[:nFit] {
		t := &genTemplate{id: g.id(idPrefix(c.index, uint64(len(c.templates)))), typ: models.TemplateTypeResumeFit, name: resumeFitTemplateNames[i]}
		crit := []map[string]any{}
		for _, s := range g.r.Perm(len(templateCriteria))[:2+g.intn(2)] {
			crit = append(crit, map[string]any{"name": templateCriteria[s][0], "weight": 1 + g.intn(5)})
		}
		t.content, _ = json.Marshal(map[string]any{"criteria": crit, "minimumScore": 50 + 5*g.intn(5), "mustHaves": []string{"Authorized to work in the US"}})
		c.templates = append(c.templates, t)
	}
	nGuide := 2 + g.intn(3)
	for _, i := range g.r.Perm(len(guideTemplateNames))[:nGuide] {
		t := &genTemplate{id: g.id(idPrefix(c.index, uint64(len(c.templates)))), typ: models.TemplateTypeInterviewGuide, name: guideTemplateNames[i]}
		for _, q := range g.r.Perm(len(templateQuestions))[:3+g.intn(3)] {
			t.questions = append(t.questions, templateQuestions[q])
		}
		t.criteria = [][2]string{templateCriteria[g.intn(len(templateCriteria))]}
		crit := []map[string]string{}
		for _, cr := range t.criteria {
			crit = append(crit, map[string]string{"name": cr[0], "description": cr[1]})
		}
		t.content, _ = json.Marshal(map[string]any{"questions": t.questions, "criteria": crit})
		c.templates = append(c.templates, t)
	}
	for _, t := range c.templates {
		t.createdAt = g.between(max(c.createdAt, c.asOf-700*day), c.asOf-30*day)
		t.updatedAt = g.between(t.createdAt, c.asOf)
	}
}

func (c *companyGen) templatesOf(typ models.TemplateType) []*genTemplate {
	var out []*genTemplate
	for _, t := range c.templates {
		if t.typ == typ {
			out = append(out, t)
		}
	}
	return out
}

func (c *companyGen) buildJobs() {
	n := max(20, c.candidates/c.perJob)
	fits := c.templatesOf(models.TemplateTypeResumeFit)
	guides := c.templatesOf(models.TemplateTypeInterviewGuide)
	// Resume-fit templates by popularity; the last one stays unused when there are several.
	var fitPick cumulative
	for i := range fits {
		if i < len(fits)-1 || len(fits) == 1 {
			fitPick.add(i, int64(100/(i+1)))
		}
	}
	g := newRNG()
	for k := 0; k < n; k++ {
		g.seed(c.key, streamJobs, uint64(k))
		j := &genJob{index: k, id: g.id(idPrefix(c.index, uint64(k))), guideID: g.id(idPrefix(c.index, uint64(k)))}
		j.family = g.weighted(c.familyWeights)
		f := &families[j.family]
		j.homeCity = c.homeCities.draw(g)
		ct := &cities[j.homeCity]
		j.title = g.pick(f.jobTitles)
		j.extTitle = j.title
		if g.chance(0.4) {
			j.extTitle = j.title + " - " + ct.name + ", " + ct.state
		}
		j.status = []models.JobStatus{models.JobStatusActive, models.JobStatusPaused, models.JobStatusFailed, models.JobStatusGenerating}[g.weighted([]int{76, 14, 6, 4})]
		j.createdAt = g.between(c.windowStart, c.asOf-2*day)
		switch j.status {
		case models.JobStatusGenerating:
			j.createdAt = c.asOf - g.between(2*minute, 6*hour)
		case models.JobStatusFailed:
			j.failure = g.pick(jobFailureReasons)
		default:
			j.hasGuide = true
			j.generatedAt = j.createdAt + g.between(40*second, 3*minute)
		}
		j.isOpen = j.status == models.JobStatusActive && g.chance(0.88) || j.status == models.JobStatusPaused && g.chance(0.5) || j.status == models.JobStatusGenerating
		j.isDeleted = j.status != models.JobStatusGenerating && g.chance(0.05)
		if j.isDeleted {
			j.isOpen = false
		}
		j.iv = j.hasGuide && g.chance(c.ivRate)
		if !fitPick.empty() && g.chance(0.45) {
			j.resumeTpl = fits[fitPick.draw(g)].id
		}
		if !c.authors.empty() && g.chance(0.95) {
			j.createdBy = c.users[c.authors.draw(g)].id
		}
		j.updatedAt = max(j.createdAt, j.generatedAt)
		if g.chance(0.3) {
			j.updatedAt = g.between(j.updatedAt, c.asOf)
		}
		opts := map[string]any{}
		if g.chance(0.25) {
			opts["intelligentlyOrderQuestions"] = true
		}
		if j.hasGuide && len(guides) > 0 && g.chance(0.35) {
			j.guideTpl = guides[g.intn(len(guides))]
		}
		if g.chance(0.2) {
			opts["additionalQuestions"] = []string{"Are you authorized to work in the United States?"}
		}
		j.genOptions, _ = json.Marshal(opts)
		var desc strings.Builder
		fmt.Fprintf(&desc, "%s is hiring a %s in %s, %s. %s\n\nWhat you will do:\n", c.name, j.title, ct.name, ct.state, f.blurb)
		for _, d := range f.duties {
			desc.WriteString("- " + d + "\n")
		}
		fmt.Fprintf(&desc, "\nWhat you bring: %s, %s and %s.", f.skills[g.intn(len(f.skills))], f.skills[g.intn(len(f.skills))], strings.ToLower(f.criteria[0][0]))
		j.description = desc.String()
		j.sessionsFrom = max(j.createdAt+2*hour, j.generatedAt+10*minute)
		c.jobs = append(c.jobs, j)
	}
	// ATS job ids follow creation order, counting the ATS jobs that were never imported.
	g.seed(c.key, streamATSExtras, 0)
	slices.SortStableFunc(c.jobs, func(a, b *genJob) int { return cmpInt64(a.createdAt, b.createdAt) })
	var list []atsJob
	for _, j := range c.jobs {
		list = append(list, atsJob{createdAt: j.createdAt, job: j, active: j.status == models.JobStatusActive && !j.isDeleted && j.isOpen})
	}
	oldest := c.jobs[0].createdAt
	for range n * 15 / 100 {
		list = append(list, atsJob{createdAt: g.between(oldest+1, c.asOf-day), active: g.chance(0.7)})
	}
	slices.SortStableFunc(list, func(a, b atsJob) int { return cmpInt64(a.createdAt, b.createdAt) })
	for i := range list {
		list[i].external = firstJobExternalID + i
		if list[i].job != nil {
			list[i].job.externalID = strconv.Itoa(list[i].external)
		}
	}
	c.atsJobs = list
	slices.SortStableFunc(c.jobs, func(a, b *genJob) int { return a.index - b.index })
	// Session targets: jobs with a guide, busier when popular and older.
	for _, j := range c.jobs {
		if !j.hasGuide || j.sessionsFrom >= c.asOf-hour {
			continue
		}
		g.seed(c.key, streamJobs, uint64(j.index)|1<<40)
		age := (c.asOf - j.sessionsFrom) / day
		w := int64(g.between(20, 100)) * (age + 14)
		c.jobsByFamily[j.family].add(j.index, w)
		c.anyJob.add(j.index, w)
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// asciiLower keeps the ASCII letters of s, lowercased ("O'Brien" -> "obrien").
func asciiLower(s string) string {
	b := make([]byte, 0, len(s))
	return string(appendLowerLetters(b, s))
}

func appendLowerLetters(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch >= 'a' && ch <= 'z':
			b = append(b, ch)
		case ch >= 'A' && ch <= 'Z':
			b = append(b, ch+'a'-'A')
		}
	}
	return b
}
