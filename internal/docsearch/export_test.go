package docsearch

// Bounds of an answer, for the tests of package docsearch_test (which imports pgtest, and
// pgtest this package).
const (
	MaxPoints      = maxPoints
	MinPoints      = minPoints
	MaxAnswerRunes = maxAnswerRunes
	MaxUnitRunes   = maxUnitRunes
)
