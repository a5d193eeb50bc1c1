package gazetteer

// stateZones are the IANA time zones of each state: the zone of most of its people first, then
// the zones of its other parts (the Florida panhandle, west Texas, the Aleutians, ...). A
// place's coordinates are not matched against zone boundaries: a city of a state that spans
// two zones gets both.
var stateZones = map[string][]string{
	"AL": {"America/Chicago"}, "AK": {"America/Anchorage", "America/Adak"}, "AZ": {"America/Phoenix"},
	"AR": {"America/Chicago"}, "CA": {"America/Los_Angeles"}, "CO": {"America/Denver"},
	"CT": {"America/New_York"}, "DE": {"America/New_York"}, "DC": {"America/New_York"},
	"FL": {"America/New_York", "America/Chicago"}, "GA": {"America/New_York"}, "HI": {"Pacific/Honolulu"},
	"ID": {"America/Boise", "America/Los_Angeles"}, "IL": {"America/Chicago"},
	"IN": {"America/Indiana/Indianapolis", "America/Chicago"}, "IA": {"America/Chicago"},
	"KS": {"America/Chicago", "America/Denver"}, "KY": {"America/New_York", "America/Chicago"},
	"LA": {"America/Chicago"}, "ME": {"America/New_York"}, "MD": {"America/New_York"}, "MA": {"America/New_York"},
	"MI": {"America/Detroit", "America/Menominee"}, "MN": {"America/Chicago"}, "MS": {"America/Chicago"},
	"MO": {"America/Chicago"}, "MT": {"America/Denver"}, "NE": {"America/Chicago", "America/Denver"},
	"NV": {"America/Los_Angeles"}, "NH": {"America/New_York"}, "NJ": {"America/New_York"}, "NM": {"America/Denver"},
	"NY": {"America/New_York"}, "NC": {"America/New_York"}, "ND": {"America/Chicago", "America/Denver"},
	"OH": {"America/New_York"}, "OK": {"America/Chicago"}, "OR": {"America/Los_Angeles", "America/Boise"},
	"PA": {"America/New_York"}, "RI": {"America/New_York"}, "SC": {"America/New_York"},
	"SD": {"America/Chicago", "America/Denver"}, "TN": {"America/Chicago", "America/New_York"},
	"TX": {"America/Chicago", "America/Denver"}, "UT": {"America/Denver"}, "VT": {"America/New_York"},
	"VA": {"America/New_York"}, "WA": {"America/Los_Angeles"}, "WV": {"America/New_York"},
	"WI": {"America/Chicago"}, "WY": {"America/Denver"}, "PR": {"America/Puerto_Rico"},
}

// TimeZones returns the IANA time zones of the place's state, the state's main zone first (see
// stateZones): several for a state that spans zones, whatever the city.
func (p Place) TimeZones() []string {
	return append([]string(nil), stateZones[p.State]...)
}
