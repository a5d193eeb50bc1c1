package gazetteer

// state is a US state, the District of Columbia or Puerto Rico.
type state struct {
	code, name string
}

var states = []state{
	{"AL", "Alabama"}, {"AK", "Alaska"}, {"AZ", "Arizona"}, {"AR", "Arkansas"}, {"CA", "California"},
	{"CO", "Colorado"}, {"CT", "Connecticut"}, {"DE", "Delaware"}, {"DC", "District of Columbia"},
	{"FL", "Florida"}, {"GA", "Georgia"}, {"HI", "Hawaii"}, {"ID", "Idaho"}, {"IL", "Illinois"},
	{"IN", "Indiana"}, {"IA", "Iowa"}, {"KS", "Kansas"}, {"KY", "Kentucky"}, {"LA", "Louisiana"},
	{"ME", "Maine"}, {"MD", "Maryland"}, {"MA", "Massachusetts"}, {"MI", "Michigan"}, {"MN", "Minnesota"},
	{"MS", "Mississippi"}, {"MO", "Missouri"}, {"MT", "Montana"}, {"NE", "Nebraska"}, {"NV", "Nevada"},
	{"NH", "New Hampshire"}, {"NJ", "New Jersey"}, {"NM", "New Mexico"}, {"NY", "New York"},
	{"NC", "North Carolina"}, {"ND", "North Dakota"}, {"OH", "Ohio"}, {"OK", "Oklahoma"}, {"OR", "Oregon"},
	{"PA", "Pennsylvania"}, {"RI", "Rhode Island"}, {"SC", "South Carolina"}, {"SD", "South Dakota"},
	{"TN", "Tennessee"}, {"TX", "Texas"}, {"UT", "Utah"}, {"VT", "Vermont"}, {"VA", "Virginia"},
	{"WA", "Washington"}, {"WV", "West Virginia"}, {"WI", "Wisconsin"}, {"WY", "Wyoming"},
	{"PR", "Puerto Rico"},
}

// stateAliases are other spellings of state names (normalised form -> USPS code).
var stateAliases = map[string]string{
	"d c": "DC", "dc": "DC", "washington dc": "DC", "washington d c": "DC",
	"calif": "CA", "cali": "CA", "mass": "MA", "penn": "PA", "tenn": "TN", "wash": "WA",
	"new york state": "NY", "washington state": "WA", "ny state": "NY",
}

// abbrEnglish are USPS codes that are also common words or abbreviations in hiring queries ("in",
// "or", "MS" for Master of Science, "PA" for physician assistant). FindIn accepts them only
// upper-case after a city name or a location preposition.
var abbrEnglish = map[string]bool{
	"IN": true, "OR": true, "ME": true, "OK": true, "HI": true, "OH": true, "ID": true, "DE": true,
	"AL": true, "CO": true, "LA": true, "NE": true, "MS": true, "MA": true, "MD": true, "PA": true,
	"AR": true, "CT": true, "SC": true, "MT": true, "GA": true, "IA": true, "SD": true, "VA": true,
}

// aliases are well-known nicknames of places: normalised text -> "Name|ST" of a gazetteer place.
var aliases = map[string]string{
	"nyc": "New York City|NY", "new york": "New York City|NY", "new york city": "New York City|NY",
	"new york ny": "New York City|NY", "manhattan": "Manhattan|NY",
	"la": "Los Angeles|CA", "l a": "Los Angeles|CA",
	"sf": "San Francisco|CA", "san fran": "San Francisco|CA", "bay area": "San Francisco|CA",
	"sf bay area": "San Francisco|CA", "san francisco bay area": "San Francisco|CA",
	"silicon valley": "San Jose|CA",
	"dc":             "Washington|DC", "d c": "Washington|DC", "washington dc": "Washington|DC",
	"washington d c": "Washington|DC", "district of columbia": "Washington|DC",
	"philly": "Philadelphia|PA", "nola": "New Orleans|LA", "slc": "Salt Lake City|UT",
	"atl": "Atlanta|GA", "chi town": "Chicago|IL", "dfw": "Dallas|TX", "vegas": "Las Vegas|NV",
	"twin cities": "Minneapolis|MN", "motor city": "Detroit|MI",
	"saint louis": "St. Louis|MO", "st louis": "St. Louis|MO",
}
