package generate

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
)

// picker chooses templates deterministically: by a hash of what the sentence is about, skipping
// templates already used in this guide so neighbouring questions read differently.
type picker struct {
	used map[*string]bool
}

func (p *picker) pick(pool []string, key string) string {
	if p.used == nil {
		p.used = map[*string]bool{}
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	start := int(h.Sum32() % uint32(len(pool)))
	for i := range pool {
		t := &pool[(start+i)%len(pool)]
		if !p.used[t] {
			p.used[t] = true
			return *t
		}
	}
	return pool[start]
}

func (a *analysis) guide() *Guide {
	var p picker
	g := &Guide{Title: a.title}
	for _, id := range a.skills {
		g.Skills = append(g.Skills, a.lx.entries[id].name)
	}

	add := func(text, skill string) {
		g.Questions = append(g.Questions, Question{Text: truncate(text, MaxQuestionLen), Source: SourceGenerated, Skill: skill})
	}
	add(fmt.Sprintf(p.pick(openingQuestions, a.title), a.role()), "")
	if a.focus != "" {
		add(fmt.Sprintf(p.pick(focusQuestions, a.focus), firstLower(a.focus)), a.skillOf(a.focus))
	}
	for _, id := range a.ask {
		e := a.lx.entries[id]
		add(fmt.Sprintf(p.pick(skillQuestions[e.kind], e.name), inSentence(e)), e.name)
	}
	for _, d := range a.responsibilities[:min(len(a.responsibilities), 2)] {
		if d.verb {
			add(fmt.Sprintf(p.pick(dutyQuestions, d.text), d.text), a.skillOf(d.text))
		} else {
			add(fmt.Sprintf(p.pick(quotedDutyQuestions, d.text), d.text), a.skillOf(d.text))
		}
	}
	if len(a.requirements) > 0 && len(g.Questions) < maxLocalQs {
		r := a.requirements[0]
		add(fmt.Sprintf(p.pick(requirementQuestions, r), r), a.skillOf(r))
	}
	for len(g.Questions) < minLocalQs {
		add(p.pick(behaviouralQuestions, a.title+fmt.Sprint(len(g.Questions))), "")
	}
	g.Questions = g.Questions[:min(len(g.Questions), maxLocalQs)]

	g.Criteria = a.criteria(&p)
	g.LearningObjectives = a.objectives()
	topics := joinList(a.topSkills(3))
	if topics == "" {
		topics = "the skills this role needs"
	}
	g.Intro = fmt.Sprintf(p.pick(intros, a.title), a.role(), topics)
	g.Outro = fmt.Sprintf(p.pick(outros, a.title), a.role())
	return g
}

// role names the job in a sentence: "the Line Cook role", or "this role" when no title could
// be inferred.
func (a *analysis) role() string {
	if a.title == fallbackTitle {
		return "this role"
	}
	return "the " + a.title + " role"
}

// skillOf returns the first guide skill mentioned in text, or "".
func (a *analysis) skillOf(text string) string {
	found := a.lx.skillsIn(text)
	for _, id := range a.skills {
		if slices.Contains(found, id) {
			return a.lx.entries[id].name
		}
	}
	return ""
}

// topSkills are the first n asked skills as they read in a sentence.
func (a *analysis) topSkills(n int) []string {
	var out []string
	for _, id := range a.ask[:min(len(a.ask), n)] {
		out = append(out, inSentence(a.lx.entries[id]))
	}
	return out
}

func (a *analysis) criteria(p *picker) []Criterion {
	var cs []Criterion
	has := func(name string) bool {
		return slices.ContainsFunc(cs, func(c Criterion) bool { return strings.EqualFold(c.Name, name) })
	}
	add := func(name, desc string) {
		if len(cs) < 6 && !has(name) {
			cs = append(cs, Criterion{Name: name, Description: truncate(desc, MaxCriterionDescLen)})
		}
	}
	n := 0
	for _, id := range a.ask {
		e := a.lx.entries[id]
		if e.kind == kSoft || n == 3 {
			continue
		}
		add(e.name, fmt.Sprintf(criterionTemplates[e.kind], inSentence(e)))
		n++
	}
	if len(a.responsibilities) > 0 {
		add("Role Readiness", fmt.Sprintf("Can take on the core responsibilities of the role (for example: %s) and backs this up with comparable past work.", firstLower(a.responsibilities[0].text)))
	}
	if len(a.requirements) > 0 {
		add("Relevant Experience", fmt.Sprintf("Meets the stated requirements, such as: \"%s\".", a.requirements[0]))
	}
	if a.focus != "" {
		add("Focus Areas", fmt.Sprintf("Shows depth in what the hiring team asked to focus on: %s.", firstLower(a.focus)))
	}
	add("Communication", "Answers clearly and concretely, with specific examples, and adapts to the listener.")
	add("Problem Solving", "Breaks problems down, weighs options and explains the reasoning behind decisions.")
	add("Motivation", fmt.Sprintf("Shows genuine interest in %s and a clear reason for applying.", a.role()))
	return cs
}

func (a *analysis) objectives() []string {
	var out []string
	if top := a.topSkills(3); len(top) > 0 {
		out = append(out, fmt.Sprintf("Assess the candidate's hands-on experience with %s.", joinList(top)))
	}
	if a.focus != "" {
		out = append(out, fmt.Sprintf("Probe what the hiring team asked to focus on: %s.", firstLower(a.focus)))
	}
	if len(a.responsibilities) > 0 {
		out = append(out, fmt.Sprintf("Understand how the candidate would handle the core work of %s, such as: %s.", a.role(), firstLower(a.responsibilities[0].text)))
	}
	if len(a.requirements) > 0 {
		out = append(out, fmt.Sprintf("Verify key requirements, such as: \"%s\".", a.requirements[0]))
	}
	if len(out) == 0 {
		out = append(out, "Understand the candidate's most relevant work experience.")
	}
	out = append(out, fmt.Sprintf("Gauge the candidate's motivation for %s and how clearly they communicate.", a.role()))
	for i := range out {
		out[i] = truncate(out[i], MaxLearningObjectiveLen)
	}
	return out[:min(len(out), 5)]
}

var openingQuestions = []string{
	"To start, could you tell me about your background and what interests you about %s?",
	"Let's begin with a short overview of your experience. What draws you to %s?",
	"Could you walk me through your recent work history and why you applied for %s?",
}

var focusQuestions = []string{
	"The hiring team wants to hear about %s. Tell me about your most relevant experience there.",
	"This role puts particular weight on %s. Can you walk me through an example from your own work?",
}

var skillQuestions = map[kind][]string{
	kTech: {
		"Walk me through a recent project where you used %s. What was your part, and what would you do differently next time?",
		"What is the hardest problem you have solved with %s, and how did you approach it?",
		"Tell me about a time something built with %s failed in production. How did you find and fix the cause?",
		"How would you explain the strengths and weaknesses of %s to a teammate who has not used it?",
		"Describe the most complex system you have built or run with %s. Which trade-offs did you make?",
		"How do you keep work built with %s maintainable and well tested as a project grows?",
	},
	kConcept: {
		"Tell me about a project where %s was central to the work. What was your role, and what was the result?",
		"How do you approach %s in practice? Walk me through a concrete example.",
		"Describe a time your experience with %s helped you avoid or fix a serious problem.",
		"What is a mistake you have seen, or made, with %s, and what did you learn from it?",
		"How would you introduce good %s practices to a team that has little experience with them?",
	},
	kTool: {
		"How have you used %s in your day-to-day work? Please give a concrete example.",
		"Which features of %s do you rely on most, and how do they help your work?",
		"Tell me about a time %s helped you solve a real problem at work.",
		"How comfortable are you with %s, and what would you like to get better at?",
	},
	kBiz: {
		"Tell me about a result you achieved through %s. How did you measure it?",
		"Walk me through how you approach %s, from start to finish, using a recent example.",
		"Describe a time your %s work did not go as planned. What did you change?",
		"What has been your most important lesson in %s, and how does it shape how you work today?",
		"How do you decide what to prioritise when it comes to %s?",
	},
	kCare: {
		"Tell me about your experience with %s. What did a typical day look like?",
		"Describe a difficult situation involving %s. How did you handle it?",
		"What does doing %s well look like to you? Please give an example from your own work.",
		"Tell me about a time your experience with %s made a real difference for someone you were helping.",
	},
	kOps: {
		"Tell me about your hands-on experience with %s. What did a typical shift look like?",
		"How do you stay safe and accurate when it comes to %s?",
		"Describe a time you spotted and fixed a problem related to %s.",
		"If a new colleague asked you for tips on %s, what would you tell them?",
		"What is your routine for making sure %s is done right the first time?",
	},
	kCred: {
		"This role calls for %s. Do you hold it today, and when did you last rely on it at work?",
		"Tell me about a situation at work where your %s mattered.",
		"How do you keep your %s current, and what did you learn the last time you renewed it?",
	},
	kSoft: {
		"Tell me about a time your %s made a real difference to the outcome of a project or shift.",
		"Give me an example that shows your %s at its best. What was the situation?",
		"Describe a time your %s was really tested. What did you do, and what happened?",
		"How would a former manager describe your %s? Please back it up with an example.",
	},
	kLang: {
		"Tell me about a situation at work where you used %s with a customer or colleague.",
		"How comfortable are you working in %s, and in which settings have you used it?",
	},
}

var dutyQuestions = []string{
	"A big part of this role is to %s. Tell me about a time you did something similar, and what the result was.",
	"In this job you would %s. Walk me through how you have done that before.",
	"Imagine your first month here: you need to %s. How would you go about it?",
	"Describe a time you had to %s. What went well, and what would you change?",
}

var quotedDutyQuestions = []string{
	"The role includes \"%s\". How have you handled similar work before?",
	"One of the responsibilities is \"%s\". Tell me about relevant experience you have.",
}

var requirementQuestions = []string{
	"The role asks for \"%s\". How does your background match that, and where would you still need to grow?",
	"One of the requirements is \"%s\". Can you give a concrete example that shows you meet it?",
}

var behaviouralQuestions = []string{
	"Tell me about a time you had to learn something new quickly to get a job done.",
	"Describe a situation where you disagreed with a colleague or manager. How did you resolve it?",
	"Tell me about a mistake you made at work and what you learned from it.",
	"Describe a time you had several urgent tasks at once. How did you decide what to do first?",
	"Tell me about a piece of work you are especially proud of. What made it successful?",
	"What kind of team and work environment helps you do your best work?",
}

var criterionTemplates = map[kind]string{
	kTech:    "Shows practical, hands-on experience with %s through specific examples, and understands its trade-offs.",
	kConcept: "Applies %s in practice and explains the reasoning behind their choices with concrete examples.",
	kTool:    "Uses %s confidently in day-to-day work and describes concrete examples.",
	kBiz:     "Shows a track record in %s with measurable results and a clear, repeatable approach.",
	kCare:    "Gives credible, specific examples of %s and handles difficult situations calmly and respectfully.",
	kOps:     "Knows %s in practice, including the safety, accuracy and quality standards that go with it.",
	kCred:    "Holds %s, or can obtain it before starting, and knows how it applies on the job.",
	kSoft:    "Gives concrete examples of %s and how it affected the outcome.",
	kLang:    "Works effectively in %s with customers and colleagues.",
}

var intros = []string{
	"Hello, and thank you for your interest in %s. I will ask you about your experience with %s and how you approach the work. There are no trick questions: please answer with specific examples from your own experience.",
	"Hi, and welcome to this interview for %s. We will talk about your background, your experience with %s, and the kind of work this role involves. Take your time, and use concrete examples where you can.",
}

var outros = []string{
	"Thank you for your time and for sharing your experience. That concludes the interview for %s. The hiring team will review your answers and get back to you about next steps.",
	"That was the last question for %s. Thank you for taking the time to talk with us; the hiring team will review the interview and contact you about next steps.",
}
