package seed

// Lexicons of the generated demo data set (scale.go). Everything here is fictional except the
// city coordinates, area codes and ZIP prefixes (real, so radius search and maps make sense) and
// the names of well-known employers and schools (plain resume text). Phone numbers use the
// 555-01XX range reserved for fiction and e-mail addresses the example.com/.net/.org domains
// reserved by RFC 2606, so that no seeded contact can reach a real person.

// US time zones with their standard UTC offsets in hours; dst says whether US daylight saving
// time applies.
type zone struct {
	std int
	dst bool
}

var (
	zoneET = zone{-5, true}
	zoneCT = zone{-6, true}
	zoneMT = zone{-7, true}
	zoneAZ = zone{-7, false}
	zonePT = zone{-8, true}
	zoneAK = zone{-9, true}
	zoneHI = zone{-10, false}
)

// city is a US city with its real coordinates, the first three digits of its ZIP codes, its
// area codes and its population in thousands (the sampling weight).
type city struct {
	name, state string
	lat, lon    float64
	zip3        string
	areaCodes   []int
	tz          zone
	pop         int
}

var cities = []city{
	{"New York", "NY", 40.7128, -74.0060, "100", []int{212, 646, 917, 718, 347}, zoneET, 8300},
	{"Los Angeles", "CA", 34.0522, -118.2437, "900", []int{213, 323, 310, 818}, zonePT, 3900},
	{"Chicago", "IL", 41.8781, -87.6298, "606", []int{312, 773, 872}, zoneCT, 2700},
	{"Houston", "TX", 29.7604, -95.3698, "770", []int{713, 281, 832}, zoneCT, 2300},
	{"Phoenix", "AZ", 33.4484, -112.0740, "850", []int{602, 480, 623}, zoneAZ, 1600},
	{"Philadelphia", "PA", 39.9526, -75.1652, "191", []int{215, 267}, zoneET, 1580},
	{"San Antonio", "TX", 29.4241, -98.4936, "782", []int{210}, zoneCT, 1450},
	{"San Diego", "CA", 32.7157, -117.1611, "921", []int{619, 858}, zonePT, 1390},
	{"Dallas", "TX", 32.7767, -96.7970, "752", []int{214, 469, 972}, zoneCT, 1300},
	{"San Jose", "CA", 37.3382, -121.8863, "951", []int{408, 669}, zonePT, 1000},
	{"Austin", "TX", 30.2672, -97.7431, "787", []int{512, 737}, zoneCT, 960},
	{"Jacksonville", "FL", 30.3322, -81.6557, "322", []int{904}, zoneET, 950},
	{"Fort Worth", "TX", 32.7555, -97.3308, "761", []int{817, 682}, zoneCT, 920},
	{"Columbus", "OH", 39.9612, -82.9988, "432", []int{614, 380}, zoneET, 900},
	{"Charlotte", "NC", 35.2271, -80.8431, "282", []int{704, 980}, zoneET, 880},
	{"Indianapolis", "IN", 39.7684, -86.1581, "462", []int{317}, zoneET, 880},
	{"San Francisco", "CA", 37.7749, -122.4194, "941", []int{415, 628}, zonePT, 810},
	{"Seattle", "WA", 47.6062, -122.3321, "981", []int{206}, zonePT, 750},
	{"Denver", "CO", 39.7392, -104.9903, "802", []int{303, 720}, zoneMT, 710},
	{"Washington", "DC", 38.9072, -77.0369, "200", []int{202}, zoneET, 680},
	{"Nashville", "TN", 36.1627, -86.7816, "372", []int{615, 629}, zoneCT, 680},
	{"Oklahoma City", "OK", 35.4676, -97.5164, "731", []int{405}, zoneCT, 690},
	{"El Paso", "TX", 31.7619, -106.4850, "799", []int{915}, zoneMT, 680},
	{"Boston", "MA", 42.3601, -71.0589, "021", []int{617, 857}, zoneET, 650},
	{"Portland", "OR", 45.5152, -122.6784, "972", []int{503, 971}, zonePT, 640},
	{"Las Vegas", "NV", 36.1699, -115.1398, "891", []int{702, 725}, zonePT, 640},
	{"Detroit", "MI", 42.3314, -83.0458, "482", []int{313}, zoneET, 630},
	{"Memphis", "TN", 35.1495, -90.0490, "381", []int{901}, zoneCT, 630},
	{"Louisville", "KY", 38.2527, -85.7585, "402", []int{502}, zoneET, 620},
	{"Baltimore", "MD", 39.2904, -76.6122, "212", []int{410, 443}, zoneET, 570},
	{"Milwaukee", "WI", 43.0389, -87.9065, "532", []int{414}, zoneCT, 570},
	{"Albuquerque", "NM", 35.0844, -106.6504, "871", []int{505}, zoneMT, 560},
	{"Tucson", "AZ", 32.2226, -110.9747, "857", []int{520}, zoneAZ, 540},
	{"Fresno", "CA", 36.7378, -119.7871, "937", []int{559}, zonePT, 540},
	{"Sacramento", "CA", 38.5816, -121.4944, "958", []int{916, 279}, zonePT, 520},
	{"Kansas City", "MO", 39.0997, -94.5786, "641", []int{816}, zoneCT, 510},
	{"Mesa", "AZ", 33.4152, -111.8315, "852", []int{480}, zoneAZ, 500},
	{"Atlanta", "GA", 33.7490, -84.3880, "303", []int{404, 470, 678, 770}, zoneET, 500},
	{"Omaha", "NE", 41.2565, -95.9345, "681", []int{402, 531}, zoneCT, 480},
	{"Colorado Springs", "CO", 38.8339, -104.8214, "809", []int{719}, zoneMT, 480},
	{"Raleigh", "NC", 35.7796, -78.6382, "276", []int{919, 984}, zoneET, 470},
	{"Long Beach", "CA", 33.7701, -118.1937, "908", []int{562}, zonePT, 460},
	{"Virginia Beach", "VA", 36.8529, -75.9780, "234", []int{757}, zoneET, 450},
	{"Miami", "FL", 25.7617, -80.1918, "331", []int{305, 786}, zoneET, 450},
	{"Oakland", "CA", 37.8044, -122.2712, "946", []int{510, 341}, zonePT, 430},
	{"Minneapolis", "MN", 44.9778, -93.2650, "554", []int{612}, zoneCT, 430},
	{"Tulsa", "OK", 36.1540, -95.9928, "741", []int{918}, zoneCT, 410},
	{"Bakersfield", "CA", 35.3733, -119.0187, "933", []int{661}, zonePT, 400},
	{"Wichita", "KS", 37.6872, -97.3301, "672", []int{316}, zoneCT, 395},
	{"Arlington", "TX", 32.7357, -97.1081, "760", []int{817, 682}, zoneCT, 395},
	{"Aurora", "CO", 39.7294, -104.8319, "800", []int{303, 720}, zoneMT, 390},
	{"Tampa", "FL", 27.9506, -82.4572, "336", []int{813, 656}, zoneET, 390},
	{"New Orleans", "LA", 29.9511, -90.0715, "701", []int{504}, zoneCT, 380},
	{"Cleveland", "OH", 41.4993, -81.6944, "441", []int{216}, zoneET, 370},
	{"Honolulu", "HI", 21.3069, -157.8583, "968", []int{808}, zoneHI, 350},
	{"Anaheim", "CA", 33.8366, -117.9143, "928", []int{714, 657}, zonePT, 345},
	{"Lexington", "KY", 38.0406, -84.5037, "405", []int{859}, zoneET, 320},
	{"Stockton", "CA", 37.9577, -121.2908, "952", []int{209}, zonePT, 320},
	{"Corpus Christi", "TX", 27.8006, -97.3964, "784", []int{361}, zoneCT, 317},
	{"Henderson", "NV", 36.0395, -114.9817, "890", []int{702, 725}, zonePT, 320},
	{"Riverside", "CA", 33.9533, -117.3962, "925", []int{951}, zonePT, 315},
	{"Newark", "NJ", 40.7357, -74.1724, "071", []int{973, 862}, zoneET, 310},
	{"Saint Paul", "MN", 44.9537, -93.0900, "551", []int{651}, zoneCT, 310},
	{"Santa Ana", "CA", 33.7455, -117.8677, "927", []int{714, 657}, zonePT, 310},
	{"Cincinnati", "OH", 39.1031, -84.5120, "452", []int{513}, zoneET, 310},
	{"Irvine", "CA", 33.6846, -117.8265, "926", []int{949}, zonePT, 305},
	{"Orlando", "FL", 28.5383, -81.3792, "328", []int{407, 321}, zoneET, 310},
	{"Pittsburgh", "PA", 40.4406, -79.9959, "152", []int{412}, zoneET, 300},
	{"St. Louis", "MO", 38.6270, -90.1994, "631", []int{314}, zoneCT, 300},
	{"Greensboro", "NC", 36.0726, -79.7920, "274", []int{336}, zoneET, 300},
	{"Jersey City", "NJ", 40.7178, -74.0431, "073", []int{201, 551}, zoneET, 290},
	{"Anchorage", "AK", 61.2181, -149.9003, "995", []int{907}, zoneAK, 290},
	{"Lincoln", "NE", 40.8136, -96.7026, "685", []int{402, 531}, zoneCT, 290},
	{"Plano", "TX", 33.0198, -96.6989, "750", []int{469, 972}, zoneCT, 285},
	{"Durham", "NC", 35.9940, -78.8986, "277", []int{919, 984}, zoneET, 285},
	{"Buffalo", "NY", 42.8864, -78.8784, "142", []int{716}, zoneET, 278},
	{"Chandler", "AZ", 33.3062, -111.8413, "852", []int{480}, zoneAZ, 275},
	{"Chula Vista", "CA", 32.6401, -117.0842, "919", []int{619}, zonePT, 275},
	{"Gilbert", "AZ", 33.3528, -111.7890, "852", []int{480}, zoneAZ, 267},
	{"Madison", "WI", 43.0731, -89.4012, "537", []int{608}, zoneCT, 270},
	{"Reno", "NV", 39.5296, -119.8138, "895", []int{775}, zonePT, 264},
	{"Fort Wayne", "IN", 41.0793, -85.1394, "468", []int{260}, zoneET, 263},
	{"North Las Vegas", "NV", 36.1989, -115.1175, "890", []int{702}, zonePT, 262},
	{"St. Petersburg", "FL", 27.7676, -82.6403, "337", []int{727}, zoneET, 258},
	{"Lubbock", "TX", 33.5779, -101.8552, "794", []int{806}, zoneCT, 257},
	{"Irving", "TX", 32.8140, -96.9489, "750", []int{214, 469, 972}, zoneCT, 256},
	{"Laredo", "TX", 27.5306, -99.4803, "780", []int{956}, zoneCT, 255},
	{"Winston-Salem", "NC", 36.0999, -80.2442, "271", []int{336}, zoneET, 250},
	{"Chesapeake", "VA", 36.7682, -76.2875, "233", []int{757}, zoneET, 249},
	{"Glendale", "AZ", 33.5387, -112.1860, "853", []int{623}, zoneAZ, 248},
	{"Garland", "TX", 32.9126, -96.6389, "750", []int{469, 972}, zoneCT, 246},
	{"Scottsdale", "AZ", 33.4942, -111.9261, "852", []int{480}, zoneAZ, 241},
	{"Norfolk", "VA", 36.8508, -76.2859, "235", []int{757}, zoneET, 238},
	{"Boise", "ID", 43.6150, -116.2023, "837", []int{208, 986}, zoneMT, 235},
	{"Fremont", "CA", 37.5485, -121.9886, "945", []int{510}, zonePT, 230},
	{"Spokane", "WA", 47.6588, -117.4260, "992", []int{509}, zonePT, 228},
	{"Santa Clarita", "CA", 34.3917, -118.5426, "913", []int{661}, zonePT, 228},
	{"Baton Rouge", "LA", 30.4515, -91.1871, "708", []int{225}, zoneCT, 227},
	{"Richmond", "VA", 37.5407, -77.4360, "232", []int{804}, zoneET, 226},
	{"Hialeah", "FL", 25.8576, -80.2781, "330", []int{305, 786}, zoneET, 223},
	{"San Bernardino", "CA", 34.1083, -117.2898, "924", []int{909}, zonePT, 222},
	{"Tacoma", "WA", 47.2529, -122.4443, "984", []int{253}, zonePT, 219},
	{"Modesto", "CA", 37.6391, -120.9969, "953", []int{209}, zonePT, 218},
	{"Huntsville", "AL", 34.7304, -86.5861, "358", []int{256}, zoneCT, 215},
	{"Des Moines", "IA", 41.5868, -93.6250, "503", []int{515}, zoneCT, 214},
	{"Yonkers", "NY", 40.9312, -73.8988, "107", []int{914}, zoneET, 211},
	{"Rochester", "NY", 43.1566, -77.6088, "146", []int{585}, zoneET, 211},
	{"Moreno Valley", "CA", 33.9425, -117.2297, "925", []int{951}, zonePT, 209},
	{"Fayetteville", "NC", 35.0527, -78.8784, "283", []int{910}, zoneET, 208},
	{"Fontana", "CA", 34.0922, -117.4350, "923", []int{909}, zonePT, 208},
	{"Columbus", "GA", 32.4610, -84.9877, "319", []int{706, 762}, zoneET, 206},
	{"Worcester", "MA", 42.2626, -71.8023, "016", []int{508, 774}, zoneET, 206},
	{"Port St. Lucie", "FL", 27.2730, -80.3582, "349", []int{772}, zoneET, 204},
	{"Little Rock", "AR", 34.7465, -92.2896, "722", []int{501}, zoneCT, 202},
	{"Augusta", "GA", 33.4735, -82.0105, "309", []int{706, 762}, zoneET, 202},
	{"Oxnard", "CA", 34.1975, -119.1771, "930", []int{805}, zonePT, 202},
	{"Birmingham", "AL", 33.5186, -86.8104, "352", []int{205, 659}, zoneCT, 200},
	{"Montgomery", "AL", 32.3668, -86.3000, "361", []int{334}, zoneCT, 200},
	{"Frisco", "TX", 33.1507, -96.8236, "750", []int{469, 972}, zoneCT, 200},
	{"Amarillo", "TX", 35.2220, -101.8313, "791", []int{806}, zoneCT, 200},
	{"Salt Lake City", "UT", 40.7608, -111.8910, "841", []int{801, 385}, zoneMT, 200},
	{"Grand Rapids", "MI", 42.9634, -85.6681, "495", []int{616}, zoneET, 198},
	{"Huntington Beach", "CA", 33.6603, -117.9992, "926", []int{714, 657}, zonePT, 198},
	{"Overland Park", "KS", 38.9822, -94.6708, "662", []int{913}, zoneCT, 197},
	{"Glendale", "CA", 34.1425, -118.2551, "912", []int{818, 747}, zonePT, 196},
	{"Tallahassee", "FL", 30.4383, -84.2807, "323", []int{850}, zoneET, 196},
	{"Grand Prairie", "TX", 32.7460, -96.9978, "750", []int{972}, zoneCT, 196},
	{"McKinney", "TX", 33.1972, -96.6398, "750", []int{469, 972}, zoneCT, 195},
	{"Cape Coral", "FL", 26.5629, -81.9495, "339", []int{239}, zoneET, 194},
	{"Sioux Falls", "SD", 43.5446, -96.7311, "571", []int{605}, zoneCT, 192},
	{"Peoria", "AZ", 33.5806, -112.2374, "853", []int{623}, zoneAZ, 190},
	{"Providence", "RI", 41.8240, -71.4128, "029", []int{401}, zoneET, 190},
	{"Vancouver", "WA", 45.6387, -122.6615, "986", []int{360, 564}, zonePT, 190},
	{"Knoxville", "TN", 35.9606, -83.9207, "379", []int{865}, zoneET, 190},
	{"Akron", "OH", 41.0814, -81.5190, "443", []int{330, 234}, zoneET, 190},
	{"Shreveport", "LA", 32.5252, -93.7502, "711", []int{318}, zoneCT, 187},
	{"Mobile", "AL", 30.6954, -88.0399, "366", []int{251}, zoneCT, 187},
	{"Brownsville", "TX", 25.9017, -97.4975, "785", []int{956}, zoneCT, 186},
	{"Newport News", "VA", 37.0871, -76.4730, "236", []int{757}, zoneET, 186},
	{"Fort Lauderdale", "FL", 26.1224, -80.1373, "333", []int{954, 754}, zoneET, 182},
	{"Chattanooga", "TN", 35.0456, -85.3097, "374", []int{423}, zoneET, 181},
	{"Tempe", "AZ", 33.4255, -111.9400, "852", []int{480}, zoneAZ, 180},
	{"Aurora", "IL", 41.7606, -88.3201, "605", []int{630, 331}, zoneCT, 180},
	{"Santa Rosa", "CA", 38.4404, -122.7141, "954", []int{707}, zonePT, 178},
	{"Eugene", "OR", 44.0521, -123.0868, "974", []int{541, 458}, zonePT, 176},
	{"Elk Grove", "CA", 38.4088, -121.3716, "957", []int{916}, zonePT, 176},
	{"Salem", "OR", 44.9429, -123.0351, "973", []int{503, 971}, zonePT, 175},
	{"Ontario", "CA", 34.0633, -117.6509, "917", []int{909}, zonePT, 175},
	{"Cary", "NC", 35.7915, -78.7811, "275", []int{919, 984}, zoneET, 174},
	{"Rancho Cucamonga", "CA", 34.1064, -117.5931, "917", []int{909}, zonePT, 174},
	{"Oceanside", "CA", 33.1959, -117.3795, "920", []int{760, 442}, zonePT, 174},
	{"Lancaster", "CA", 34.6868, -118.1542, "935", []int{661}, zonePT, 173},
	{"Garden Grove", "CA", 33.7743, -117.9380, "928", []int{714, 657}, zonePT, 172},
	{"Pembroke Pines", "FL", 26.0078, -80.2963, "330", []int{954, 754}, zoneET, 171},
	{"Fort Collins", "CO", 40.5853, -105.0844, "805", []int{970}, zoneMT, 170},
	{"Palmdale", "CA", 34.5794, -118.1165, "935", []int{661}, zonePT, 169},
	{"Springfield", "MO", 37.2090, -93.2923, "658", []int{417}, zoneCT, 169},
	{"Clarksville", "TN", 36.5298, -87.3595, "370", []int{931}, zoneCT, 166},
	{"Toledo", "OH", 41.6528, -83.5379, "436", []int{419, 567}, zoneET, 270},
	{"Jackson", "MS", 32.2988, -90.1848, "392", []int{601, 769}, zoneCT, 153},
	{"Charleston", "SC", 32.7765, -79.9311, "294", []int{843, 854}, zoneET, 150},
	{"Rockford", "IL", 42.2711, -89.0940, "611", []int{815, 779}, zoneCT, 148},
	{"Savannah", "GA", 32.0809, -81.0912, "314", []int{912}, zoneET, 147},
	{"Syracuse", "NY", 43.0481, -76.1474, "132", []int{315, 680}, zoneET, 146},
	{"Columbia", "SC", 34.0007, -81.0348, "292", []int{803, 839}, zoneET, 137},
	{"Dayton", "OH", 39.7589, -84.1916, "454", []int{937}, zoneET, 137},
	{"Fargo", "ND", 46.8772, -96.7898, "581", []int{701}, zoneCT, 125},
	{"Ann Arbor", "MI", 42.2808, -83.7430, "481", []int{734}, zoneET, 123},
	{"Hartford", "CT", 41.7658, -72.6734, "061", []int{860, 959}, zoneET, 121},
	{"Billings", "MT", 45.7833, -108.5007, "591", []int{406}, zoneMT, 117},
	{"Manchester", "NH", 42.9956, -71.4548, "031", []int{603}, zoneET, 115},
	{"Provo", "UT", 40.2338, -111.6585, "846", []int{801, 385}, zoneMT, 115},
	{"Boulder", "CO", 40.0150, -105.2705, "803", []int{303, 720}, zoneMT, 105},
	{"Santa Fe", "NM", 35.6870, -105.9378, "875", []int{505}, zoneMT, 88},
	{"Wilmington", "DE", 39.7391, -75.5398, "198", []int{302}, zoneET, 71},
	{"Portland", "ME", 43.6591, -70.2568, "041", []int{207}, zoneET, 68},
	{"Cheyenne", "WY", 41.1400, -104.8202, "820", []int{307}, zoneMT, 65},
	{"Charleston", "WV", 38.3498, -81.6326, "253", []int{304, 681}, zoneET, 48},
	{"Burlington", "VT", 44.4759, -73.2121, "054", []int{802}, zoneET, 45},
}

var firstNames = []string{
	"James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
	"William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Christopher", "Karen",
	"Charles", "Lisa", "Daniel", "Nancy", "Matthew", "Betty", "Anthony", "Sandra", "Mark", "Margaret",
	"Donald", "Ashley", "Steven", "Kimberly", "Andrew", "Emily", "Paul", "Donna", "Joshua", "Michelle",
	"Kenneth", "Carol", "Kevin", "Amanda", "Brian", "Melissa", "Timothy", "Deborah", "Ronald", "Stephanie",
	"Jason", "Rebecca", "George", "Sharon", "Edward", "Laura", "Jeffrey", "Cynthia", "Ryan", "Amy",
	"Jacob", "Kathleen", "Nicholas", "Angela", "Gary", "Shirley", "Eric", "Brenda", "Jonathan", "Emma",
	"Stephen", "Anna", "Larry", "Pamela", "Justin", "Nicole", "Scott", "Samantha", "Brandon", "Katherine",
	"Benjamin", "Christine", "Samuel", "Debra", "Gregory", "Rachel", "Alexander", "Carolyn", "Patrick", "Janet",
	"Frank", "Maria", "Raymond", "Olivia", "Jack", "Heather", "Dennis", "Helen", "Jerry", "Catherine",
	"Tyler", "Diane", "Aaron", "Julie", "Jose", "Victoria", "Adam", "Joyce", "Nathan", "Lauren",
	"Henry", "Kelly", "Zachary", "Christina", "Douglas", "Ruth", "Peter", "Joan", "Kyle", "Virginia",
	"Noah", "Judith", "Ethan", "Evelyn", "Jeremy", "Hannah", "Christian", "Andrea", "Walter", "Megan",
	"Keith", "Cheryl", "Austin", "Jacqueline", "Roger", "Madison", "Terry", "Sophia", "Sean", "Abigail",
	"Gerald", "Teresa", "Carl", "Isabella", "Dylan", "Sara", "Harold", "Janice", "Jordan", "Gloria",
	"Jesse", "Kathryn", "Bryan", "Ann", "Lawrence", "Jean", "Arthur", "Alice", "Gabriel", "Grace",
	"Juan", "Rosa", "Luis", "Ana", "Carlos", "Sofia", "Miguel", "Camila", "Diego", "Valentina",
	"Wei", "Mei", "Raj", "Priya", "Arjun", "Ananya", "Hiroshi", "Yuki", "Minh", "Linh",
	"Jamal", "Aaliyah", "Malik", "Imani", "DeShawn", "Keisha", "Omar", "Fatima", "Ahmed", "Layla",
	"Mateo", "Lucia", "Santiago", "Ximena", "Elijah", "Chloe", "Liam", "Ava", "Lucas", "Mia",
}

var lastNames = []string{
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
	"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
	"Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
	"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
	"Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
	"Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes",
	"Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper",
	"Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson",
	"Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes",
	"Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez",
	"Powell", "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes",
	"Gonzales", "Fisher", "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander", "Hamilton", "Graham",
	"Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes", "Bryant", "Herrera", "Gibson",
	"Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray", "Ford", "Castro", "Marshall", "Owens",
	"Harrison", "Fernandez", "McDonald", "Woods", "Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen",
	"Freeman", "Webb", "Tucker", "Guzman", "Burns", "Crawford", "Olson", "Simpson", "Porter", "Hunter",
	"Gordon", "Mendez", "Silva", "Shaw", "Snyder", "Mason", "Dixon", "Munoz", "Hunt", "Hicks",
	"Holmes", "Palmer", "Wagner", "Black", "Robertson", "Boyd", "Rose", "Stone", "Salazar", "Fox",
	"Warren", "Mills", "Meyer", "Rice", "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens",
	"Soto", "Weaver", "Ryan", "Gardner", "Payne", "Grant", "Dunn", "Kumar", "Singh", "Shah",
	"Wang", "Li", "Zhang", "Liu", "Yang", "Huang", "Nakamura", "Tanaka", "Pham", "Le",
	"O'Brien", "O'Connor", "Murphy-Lee", "St. John", "Van Dyke", "De La Cruz", "MacLeod", "Novak", "Kowalski", "Nowak",
}

var universities = []string{
	"University of Texas", "Texas A&M University", "University of Michigan", "Ohio State University",
	"Pennsylvania State University", "University of Florida", "University of Washington", "Arizona State University",
	"University of California, Berkeley", "University of California, Los Angeles", "University of Southern California",
	"Georgia Institute of Technology", "University of Illinois Urbana-Champaign", "Purdue University",
	"University of Wisconsin-Madison", "University of Minnesota", "Rutgers University", "New York University",
	"Boston University", "Northeastern University", "University of North Carolina at Chapel Hill",
	"North Carolina State University", "Virginia Tech", "University of Virginia", "University of Maryland",
	"University of Colorado Boulder", "Colorado State University", "University of Arizona", "University of Utah",
	"Oregon State University", "San Diego State University", "San Jose State University", "University of Houston",
	"Florida State University", "University of Central Florida", "Georgia State University", "Temple University",
	"University of Pittsburgh", "Indiana University", "Michigan State University", "University of Kansas",
	"University of Missouri", "University of Tennessee", "Clemson University", "Auburn University",
	"Louisiana State University", "University of Oklahoma", "Iowa State University", "Stanford University",
	"Carnegie Mellon University", "Cornell University", "Duke University", "Howard University",
}

var communityColleges = []string{
	"Austin Community College", "Houston Community College", "Miami Dade College", "Valencia College",
	"Lone Star College", "Maricopa Community Colleges", "Santa Monica College", "De Anza College",
	"Northern Virginia Community College", "Ivy Tech Community College", "Portland Community College",
	"Salt Lake Community College", "Tarrant County College", "Dallas College", "Pima Community College",
	"City Colleges of Chicago", "Cuyahoga Community College", "Community College of Denver",
	"Broward College", "Central Piedmont Community College", "Sinclair Community College",
	"Borough of Manhattan Community College", "Seattle Central College", "San Antonio College",
}

// family is a kind of work: jobs and candidates of a family share titles, skills, employers,
// education, interview questions and grading criteria.
type family struct {
	name       string
	jobTitles  []string
	candTitles []string
	senior     bool // candidate titles take a "Senior " prefix with experience
	skills     []string
	employers  []string
	// education entries: "degree|U" (a university), "degree|C" (a community college) or a plain
	// credential.
	education []string
	blurb     string
	duties    []string
	questions []string
	criteria  [][2]string
	notes     []string
	yoeMax    int
}

const (
	famSoftware = iota
	famNursing
	famSupport
	famWarehouse
	famSales
	famFinance
	famTrades
	famRetail
	numFamilies
)

var families = [numFamilies]family{
	famSoftware: {
		name: "software",
		jobTitles: []string{"Backend Engineer (Go)", "Senior Software Engineer", "Frontend Engineer (React)", "Full Stack Developer",
			"DevOps Engineer", "Data Engineer", "Site Reliability Engineer", "iOS Developer", "QA Automation Engineer",
			"Machine Learning Engineer", "Data Analyst", "Platform Engineer", "Java Developer", "Python Developer", "Cloud Engineer (AWS)"},
		candTitles: []string{"Software Engineer", "Backend Developer", "Frontend Developer", "Full Stack Engineer", "DevOps Engineer",
			"Data Engineer", "Site Reliability Engineer", "Mobile Developer", "QA Engineer", "Machine Learning Engineer",
			"Data Analyst", "Cloud Engineer", "Java Developer", "Python Developer", "Software Developer"},
		senior: true,
		skills: []string{"Go", "Python", "Java", "JavaScript", "TypeScript", "React", "Node.js", "PostgreSQL", "MySQL", "AWS",
			"Azure", "Google Cloud", "Kubernetes", "Docker", "Terraform", "SQL", "Spark", "Kafka", "GraphQL", "REST APIs",
			"CI/CD", "Linux", "Swift", "Kotlin", "PyTorch", "TensorFlow", "Redis", "Microservices", "C#", ".NET",
			"Selenium", "Airflow", "Snowflake", "Tableau", "Git", "Distributed systems", "System design", "Rust", "Ruby on Rails", "Vue.js"},
		employers: []string{"Amazon", "Google", "Microsoft", "Meta", "Apple", "Oracle", "Salesforce", "IBM", "Intel", "Cisco",
			"Dell Technologies", "Accenture", "Capital One", "Stripe", "Shopify", "Uber", "Lyft", "Airbnb", "Netflix", "Adobe",
			"Indeed", "Epic Systems", "Workday", "ServiceNow", "Atlassian", "Twilio", "Datadog", "Cloudflare", "GitHub", "Intuit"},
		education: []string{"BS Computer Science|U", "BS Computer Science|U", "BS Software Engineering|U", "MS Computer Science|U",
			"BS Electrical Engineering|U", "BS Computer Engineering|U", "BA Mathematics|U", "BS Information Systems|U",
			"MS Data Science|U", "AS Computer Programming|C", "Full-stack web development bootcamp certificate"},
		blurb: "You will design, build and operate services used by thousands of customers, working in a small team that owns its code from design to production.",
		duties: []string{"Write well-tested code and review your teammates' pull requests.", "Take part in an on-call rotation for the services you build.",
			"Work with product managers to turn requirements into technical plans.", "Improve performance, reliability and observability of our systems."},
		questions: []string{
			"Tell me about a system you built that you are proud of. What trade-offs did you make?",
			"How would you find and fix a slow database query in production?",
			"Describe how you would design an API so that clients can retry requests safely.",
			"Walk me through how you debug an incident when an alert fires at night.",
			"How do you decide what to test, and at which level?",
			"Tell me about a time you disagreed with a technical decision. What happened?",
			"How do you keep a large codebase maintainable as the team grows?",
			"Explain a concept from your field to someone without a technical background.",
			"How have you used cloud infrastructure, and how did you control its cost?",
			"Describe a production outage you were involved in and what you learned from it.",
		},
		criteria: [][2]string{{"Technical depth", "Explains trade-offs with concrete examples."}, {"Problem solving", "Breaks a problem down and reasons about edge cases."},
			{"Operational ownership", "Has run what they built and learned from incidents."}, {"Communication", "Explains technical ideas clearly and concisely."},
			{"Collaboration", "Works through disagreement constructively."}},
		notes: []string{"Strong system design answer; talked through caching and consistency trade-offs.", "Solid fundamentals but limited production experience.",
			"Has run Kubernetes in production; good incident stories.", "Great communicator, a bit light on testing practices.",
			"Wants fully remote; open to quarterly travel.", "Currently interviewing elsewhere, has an offer deadline in two weeks."},
		yoeMax: 25,
	},
	famNursing: {
		name: "nursing",
		jobTitles: []string{"Registered Nurse (ICU)", "Registered Nurse (Med-Surg)", "Travel Nurse (ER)", "Licensed Practical Nurse",
			"Certified Nursing Assistant", "Medical Assistant", "Pharmacy Technician", "Physical Therapist", "Charge Nurse (Telemetry)",
			"Home Health Aide", "Patient Care Technician", "Registered Nurse (Labor & Delivery)"},
		candTitles: []string{"Registered Nurse", "ICU Nurse", "ER Nurse", "Licensed Practical Nurse", "Certified Nursing Assistant",
			"Medical Assistant", "Pharmacy Technician", "Physical Therapist", "Charge Nurse", "Home Health Aide", "Patient Care Technician", "Travel Nurse"},
		skills: []string{"Patient care", "BLS", "ACLS", "PALS", "Epic EHR", "Cerner", "Medication administration", "Phlebotomy", "Vital signs",
			"Wound care", "Telemetry", "IV therapy", "Infection control", "HIPAA", "Triage", "Care planning", "Patient education",
			"Critical care", "Electronic health records", "CPR", "Spanish (bilingual)"},
		employers: []string{"HCA Healthcare", "Kaiser Permanente", "Mayo Clinic", "Cleveland Clinic", "Ascension", "CommonSpirit Health",
			"Tenet Healthcare", "Walgreens", "CVS Health", "Providence", "Advocate Health", "Trinity Health", "Banner Health",
			"Intermountain Health", "Baylor Scott & White Health", "Northwell Health", "Sutter Health", "Atrium Health"},
		education: []string{"BSN Nursing|U", "BSN Nursing|U", "ADN Nursing|C", "ADN Nursing|C", "LPN Certificate|C", "CNA Certification|C",
			"Medical Assistant Certificate|C", "Doctor of Physical Therapy|U", "Pharmacy Technician Certification (CPhT)", "MSN Nursing|U"},
		blurb: "Join a care team that puts patients first, with supportive leadership, predictable scheduling and tuition reimbursement.",
		duties: []string{"Assess, plan and document patient care in the EHR.", "Administer medication and monitor patient response.",
			"Coordinate with physicians, therapists and families.", "Follow infection control and safety protocols."},
		questions: []string{
			"Tell me about a shift where priorities changed quickly. How did you handle it?",
			"How do you double-check medication before administering it?",
			"Describe a time you advocated for a patient.",
			"How do you handle a disagreement with a physician about a patient's care?",
			"Which shifts are you available for, and can you work weekends?",
			"Are your license and certifications current? Which state issued them?",
			"Tell me about a time you supported a family member through difficult news.",
			"How do you keep documentation accurate during a busy shift?",
		},
		criteria: [][2]string{{"Clinical judgement", "Prioritises safely under pressure."}, {"Licensure", "Holds an active license and the required certifications."},
			{"Patient communication", "Explains care clearly and with empathy."}, {"Teamwork", "Coordinates well with the care team."}},
		notes: []string{"Active RN license in two states; BLS and ACLS current.", "Prefers night shifts, available three days a week.",
			"Great bedside manner in the scenario questions.", "License renewal pending, follow up next month.",
			"Relocating from out of state, needs a start date after the move.", "Strong ICU background, asked about sign-on bonus."},
		yoeMax: 30,
	},
	famSupport: {
		name: "support",
		jobTitles: []string{"Customer Support Specialist", "Customer Success Manager", "Call Center Representative", "Technical Support Specialist",
			"Client Services Associate", "Customer Service Representative (Bilingual)", "Help Desk Analyst", "Support Team Lead"},
		candTitles: []string{"Customer Support Specialist", "Customer Success Manager", "Call Center Agent", "Technical Support Specialist",
			"Customer Service Representative", "Help Desk Technician", "Support Team Lead", "Client Services Associate"},
		senior: true,
		skills: []string{"Customer service", "Zendesk", "Salesforce", "Conflict resolution", "Ticketing", "Live chat", "Phone support", "CRM",
			"De-escalation", "Spanish (bilingual)", "Intercom", "Freshdesk", "Troubleshooting", "Active listening", "Data entry",
			"ServiceNow", "Microsoft Office", "Typing 60 WPM"},
		employers: []string{"Comcast", "AT&T", "Verizon", "T-Mobile", "Teleperformance", "Concentrix", "Apple", "Amazon", "Alorica",
			"TTEC", "Sitel", "Spectrum", "Dish Network", "Best Buy", "Progressive", "State Farm", "USAA", "Chewy"},
		education: []string{"High School Diploma", "High School Diploma", "AA Business Administration|C", "BA Communications|U",
			"BA Psychology|U", "Some college, General Studies|C", "CompTIA A+ Certification", "BS Business Administration|U"},
		blurb: "Help our customers by phone, chat and e-mail: resolve their issues, document them, and escalate with care.",
		duties: []string{"Answer customer questions by phone, chat and e-mail.", "Document every interaction in our ticketing system.",
			"Escalate complex issues to the right team.", "Meet quality and response-time goals."},
		questions: []string{
			"Describe a time you turned an unhappy customer around.",
			"How do you decide when to escalate an issue?",
			"How do you keep track of many open tickets at once?",
			"Tell me about a time you had to say no to a customer.",
			"How do you stay calm with a caller who is shouting?",
			"What does great customer service mean to you?",
			"Tell me about a process you improved for your team.",
		},
		criteria: [][2]string{{"Empathy", "Listens and acknowledges the customer's situation."}, {"Clarity", "Explains next steps simply."},
			{"Ownership", "Follows up until the issue is resolved."}, {"Composure", "Stays calm and professional under pressure."}},
		notes: []string{"Warm, patient tone; handled the angry-customer scenario well.", "Bilingual English/Spanish, verified in the interview.",
			"Available for evening shifts only.", "Some pauses, but solid answers overall.", "Previously a team lead; could be a future supervisor."},
		yoeMax: 20,
	},
	famWarehouse: {
		name: "warehouse",
		jobTitles: []string{"Warehouse Associate", "Forklift Operator", "Delivery Driver (CDL-A)", "Shipping and Receiving Clerk",
			"Inventory Control Specialist", "Logistics Coordinator", "Material Handler", "Warehouse Supervisor", "Order Picker (Night Shift)"},
		candTitles: []string{"Warehouse Associate", "Forklift Operator", "Truck Driver", "Shipping Clerk", "Inventory Specialist",
			"Logistics Coordinator", "Material Handler", "Warehouse Supervisor", "Picker Packer", "Dispatcher"},
		skills: []string{"Forklift", "Order picking", "RF scanner", "OSHA safety", "Inventory management", "Pallet jack", "CDL-A", "Shipping & receiving",
			"WMS", "Loading/unloading", "Reach truck", "Cycle counting", "DOT regulations", "Route planning", "Lifting 50 lbs", "Quality control"},
		employers: []string{"Amazon", "FedEx", "UPS", "Walmart", "Target", "Home Depot", "XPO Logistics", "DHL", "Costco", "J.B. Hunt",
			"Ryder", "C.H. Robinson", "Sysco", "Lowe's", "Kroger", "PepsiCo", "Schneider", "Werner Enterprises"},
		education: []string{"High School Diploma", "High School Diploma", "GED", "Forklift Certification", "CDL Class A License",
			"AAS Logistics and Supply Chain|C", "BS Supply Chain Management|U", "OSHA 10 Certification"},
		blurb: "Pick, pack and ship orders safely and accurately in a fast-paced distribution center with weekly pay and overtime.",
		duties: []string{"Pick and pack orders with an RF scanner.", "Load and unload trucks safely.",
			"Keep inventory counts accurate.", "Follow OSHA and site safety rules."},
		questions: []string{
			"Which shifts are you available for?",
			"Tell me about how you keep a work area safe.",
			"Do you have forklift or pallet jack experience? For how long?",
			"How do you stay accurate when the pace picks up?",
			"Are you comfortable lifting up to 50 pounds repeatedly?",
			"Tell me about a time you noticed a safety issue. What did you do?",
			"Do you have reliable transportation to the site?",
		},
		criteria: [][2]string{{"Reliability", "Available for the required shifts."}, {"Safety awareness", "Names concrete safety practices."},
			{"Experience", "Has used the equipment the role needs."}, {"Accuracy", "Describes how they avoid mistakes at speed."}},
		notes: []string{"Forklift certified, can start Monday.", "Only available weekends.", "Good safety answers; mentioned lockout/tagout.",
			"Needs a ride to the site; check the shuttle schedule.", "CDL-A with a clean record."},
		yoeMax: 25,
	},
	famSales: {
		name: "sales",
		jobTitles: []string{"Account Executive", "Sales Development Representative", "Inside Sales Representative", "Marketing Coordinator",
			"Digital Marketing Specialist", "Territory Sales Manager", "Business Development Manager", "Account Manager"},
		candTitles: []string{"Account Executive", "Sales Development Representative", "Inside Sales Representative", "Marketing Coordinator",
			"Digital Marketing Specialist", "Sales Manager", "Business Development Manager", "Account Manager"},
		senior: true,
		skills: []string{"Salesforce", "Cold calling", "Lead generation", "Negotiation", "HubSpot", "B2B sales", "Pipeline management", "SEO",
			"Google Ads", "Content marketing", "Social media marketing", "Account management", "Closing", "Prospecting",
			"LinkedIn Sales Navigator", "Email marketing", "Public speaking", "Forecasting"},
		employers: []string{"Oracle", "Salesforce", "ADP", "Paychex", "Cintas", "Gartner", "HubSpot", "Yelp", "Zillow", "Indeed",
			"Enterprise Holdings", "Coca-Cola", "Procter & Gamble", "Xerox", "Verizon", "Comcast", "Hilton", "Ecolab"},
		education: []string{"BBA Marketing|U", "BS Business Administration|U", "BA Communications|U", "BA Economics|U", "MBA|U",
			"AA Business|C", "BA Psychology|U", "High School Diploma"},
		blurb: "Grow our customer base: build pipeline, run great discovery calls and close deals with a supportive, quota-carrying team.",
		duties: []string{"Prospect and qualify new accounts.", "Run discovery calls and product demos.",
			"Keep the CRM up to date.", "Work with marketing on campaigns and events."},
		questions: []string{
			"Walk me through a deal you closed from first contact to signature.",
			"How do you handle a prospect who says the price is too high?",
			"How do you organise your pipeline week to week?",
			"Tell me about a quarter you missed your number. What did you change?",
			"How do you research a company before a first call?",
			"Describe a campaign you ran and how you measured it.",
		},
		criteria: [][2]string{{"Drive", "Shows ownership of targets and results."}, {"Persuasion", "Handles objections with substance."},
			{"Organisation", "Manages pipeline systematically."}, {"Coachability", "Learns from losses."}},
		notes: []string{"Consistently hit quota at last two companies.", "Great energy, needs more B2B experience.",
			"Strong objection handling in the role play.", "Asked about OTE and commission structure."},
		yoeMax: 25,
	},
	famFinance: {
		name: "finance",
		jobTitles: []string{"Staff Accountant", "Accounts Payable Specialist", "Financial Analyst", "Payroll Specialist", "Administrative Assistant",
			"Office Manager", "Bookkeeper", "Executive Assistant", "HR Coordinator", "Billing Specialist"},
		candTitles: []string{"Staff Accountant", "Accounts Payable Clerk", "Financial Analyst", "Payroll Specialist", "Administrative Assistant",
			"Office Manager", "Bookkeeper", "Executive Assistant", "HR Coordinator", "Billing Specialist"},
		senior: true,
		skills: []string{"QuickBooks", "Excel", "GAAP", "Accounts payable", "Accounts receivable", "Reconciliation", "SAP", "Financial modeling",
			"Payroll", "Data entry", "Scheduling", "NetSuite", "ADP Workforce Now", "Microsoft Office", "Budgeting", "Month-end close",
			"Calendar management", "Onboarding", "Invoicing"},
		employers: []string{"Deloitte", "PwC", "EY", "KPMG", "JPMorgan Chase", "Bank of America", "Wells Fargo", "Intuit", "Fidelity Investments",
			"Charles Schwab", "American Express", "H&R Block", "Robert Half", "Citigroup", "U.S. Bank", "Edward Jones"},
		education: []string{"BS Accounting|U", "BS Accounting|U", "BBA Finance|U", "BS Economics|U", "AAS Accounting|C", "MBA Finance|U",
			"AA Business Administration|C", "High School Diploma", "BA English|U"},
		blurb: "Keep our books accurate and our office running smoothly as part of a small, collaborative finance and operations team.",
		duties: []string{"Process invoices and payments accurately and on time.", "Reconcile accounts and support the month-end close.",
			"Prepare reports for managers.", "Keep records organised and audit-ready."},
		questions: []string{
			"Walk me through your month-end close process.",
			"How do you make sure your data entry is accurate?",
			"Tell me about a discrepancy you found and how you resolved it.",
			"Which accounting or payroll systems have you used?",
			"How do you prioritise when several managers need things at once?",
			"Describe a spreadsheet or report you built that others relied on.",
		},
		criteria: [][2]string{{"Accuracy", "Describes concrete checks against mistakes."}, {"Systems knowledge", "Has used the tools the role needs."},
			{"Organisation", "Prioritises competing requests."}, {"Discretion", "Handles confidential data responsibly."}},
		notes: []string{"Strong Excel; builds pivot tables and lookups comfortably.", "CPA candidate, two exams passed.",
			"Detail-oriented; found the discrepancy in the exercise quickly.", "Prefers hybrid, three days in office is fine."},
		yoeMax: 30,
	},
	famTrades: {
		name: "trades",
		jobTitles: []string{"Maintenance Technician", "CNC Machinist", "Electrician", "HVAC Technician", "Production Supervisor", "Welder",
			"Assembly Technician", "Quality Inspector", "Industrial Mechanic", "Plumber"},
		candTitles: []string{"Maintenance Technician", "CNC Machinist", "Electrician", "HVAC Technician", "Production Supervisor", "Welder",
			"Assembler", "Quality Inspector", "Industrial Mechanic", "Plumber", "Machine Operator"},
		skills: []string{"Preventive maintenance", "PLC troubleshooting", "Blueprint reading", "MIG welding", "TIG welding", "Electrical wiring",
			"HVAC", "Lean manufacturing", "Six Sigma", "CNC programming", "Hydraulics", "Pneumatics", "OSHA safety", "Lockout/tagout",
			"Precision measurement", "Soldering", "5S", "Root cause analysis"},
		employers: []string{"Caterpillar", "General Electric", "Boeing", "Ford Motor Company", "3M", "Honeywell", "John Deere", "Tesla",
			"General Motors", "Lockheed Martin", "Whirlpool", "Cummins", "Siemens", "Parker Hannifin", "Emerson", "Carrier"},
		education: []string{"High School Diploma", "Journeyman Electrician License", "AAS Industrial Maintenance|C", "AWS Certified Welder",
			"EPA 608 Universal Certification", "AAS Machining Technology|C", "BS Mechanical Engineering|U", "Apprenticeship, Pipefitters Local 597"},
		blurb: "Keep our production lines running safely and efficiently in a modern plant with paid training, overtime and full benefits.",
		duties: []string{"Troubleshoot and repair production equipment.", "Perform scheduled preventive maintenance.",
			"Read blueprints and schematics.", "Follow lockout/tagout and plant safety procedures."},
		questions: []string{
			"Tell me about the hardest equipment breakdown you fixed.",
			"How do you approach preventive maintenance?",
			"Which machines, tools or controls are you certified on?",
			"Describe how you use lockout/tagout.",
			"How do you read a blueprint to check a part's tolerances?",
			"Which shifts can you work, and are you open to overtime?",
		},
		criteria: [][2]string{{"Technical skill", "Describes repairs with concrete detail."}, {"Safety", "Follows procedures without shortcuts."},
			{"Reliability", "Available for the required shifts."}, {"Troubleshooting", "Works systematically to a root cause."}},
		notes: []string{"Journeyman license, ten years in industrial settings.", "Strong PLC experience (Allen-Bradley).",
			"Available for second shift; open to overtime.", "Welding test scheduled for next week."},
		yoeMax: 35,
	},
	famRetail: {
		name: "retail",
		jobTitles: []string{"Store Manager", "Retail Sales Associate", "Shift Supervisor", "Line Cook", "Front Desk Agent", "Barista",
			"Assistant Store Manager", "Restaurant General Manager", "Housekeeping Supervisor", "Cashier"},
		candTitles: []string{"Store Manager", "Sales Associate", "Shift Supervisor", "Line Cook", "Front Desk Agent", "Barista",
			"Assistant Manager", "Restaurant Manager", "Housekeeper", "Cashier", "Server"},
		skills: []string{"POS systems", "Cash handling", "Merchandising", "Inventory", "Food safety (ServSafe)", "Team leadership", "Scheduling",
			"Customer service", "Visual merchandising", "Loss prevention", "Upselling", "Opening and closing", "Food preparation",
			"Guest relations", "Opera PMS", "Training new hires"},
		employers: []string{"Target", "Walmart", "Starbucks", "Marriott", "Hilton", "Kroger", "Best Buy", "McDonald's", "Chipotle", "Macy's",
			"Walgreens", "Darden Restaurants", "Hyatt", "Publix", "Costco", "TJX Companies", "Olive Garden", "Panera Bread", "Nordstrom"},
		education: []string{"High School Diploma", "High School Diploma", "GED", "ServSafe Food Handler Certificate", "AA Hospitality Management|C",
			"BS Hospitality Management|U", "BA Business|U", "Culinary Arts Certificate|C"},
		blurb: "Create great experiences for our guests in a friendly team with flexible schedules, employee discounts and room to grow.",
		duties: []string{"Welcome and help guests.", "Handle payments and keep the register accurate.",
			"Keep the floor stocked, clean and well presented.", "Support the team during peak hours."},
		questions: []string{
			"Tell me about a time you made a guest's day.",
			"How do you handle a long line and an upset customer at the same time?",
			"What is your availability, including weekends and holidays?",
			"Tell me about a time you trained or helped a new coworker.",
			"How would you handle a coworker who is not pulling their weight?",
			"How do you make sure the cash drawer balances at the end of a shift?",
		},
		criteria: [][2]string{{"Guest focus", "Puts the guest experience first."}, {"Availability", "Can cover the required shifts."},
			{"Teamwork", "Supports coworkers during busy periods."}, {"Dependability", "Shows up on time and follows through."}},
		notes: []string{"Friendly and upbeat; great fit for the front counter.", "Available nights and weekends.",
			"Managed a team of 12 at previous store.", "ServSafe certified; wants full-time hours."},
		yoeMax: 25,
	},
}

// industry is the focus of a generated company; weights are per family.
type industry struct {
	name    string
	weights [numFamilies]int
}

var (
	indStaffing      = industry{"staffing", [numFamilies]int{14, 16, 14, 18, 8, 10, 10, 10}}
	indHealthcare    = industry{"healthcare", [numFamilies]int{3, 70, 10, 2, 0, 15, 0, 0}}
	indTech          = industry{"technology", [numFamilies]int{65, 0, 15, 0, 14, 6, 0, 0}}
	indLogistics     = industry{"logistics", [numFamilies]int{3, 0, 10, 67, 3, 7, 10, 0}}
	indRetail        = industry{"retail", [numFamilies]int{2, 0, 10, 20, 4, 6, 0, 58}}
	indManufacturing = industry{"manufacturing", [numFamilies]int{4, 0, 3, 25, 3, 8, 57, 0}}
	indFinance       = industry{"financial services", [numFamilies]int{12, 0, 25, 0, 15, 48, 0, 0}}
	indSupport       = industry{"customer support", [numFamilies]int{5, 0, 70, 0, 15, 10, 0, 0}}
)

var companyNames = []struct {
	name string
	ind  industry
}{
	{"Northwind Health Partners", indHealthcare}, {"Summit Ridge Logistics", indLogistics}, {"BrightPath Staffing", indStaffing},
	{"Cobalt Software Labs", indTech}, {"Lone Star Medical Group", indHealthcare}, {"Harborview Retail Co", indRetail},
	{"Ironworks Manufacturing", indManufacturing}, {"Evergreen Financial Services", indFinance}, {"Keystone Customer Care", indSupport},
	{"Bluebonnet Home Health", indHealthcare}, {"Pioneer Freight Systems", indLogistics}, {"Redwood Talent Solutions", indStaffing},
	{"Granite Peak Technologies", indTech}, {"Magnolia Hospitality Group", indRetail}, {"Great Lakes Fabrication", indManufacturing},
	{"Cascade Credit Union", indFinance}, {"Sunbelt Contact Centers", indSupport}, {"Prairie View Senior Living", indHealthcare},
	{"Copperline Distribution", indLogistics}, {"Atlas Workforce Partners", indStaffing}, {"Brightwave Analytics", indTech},
	{"Coastal Grocers", indRetail}, {"Midwest Precision Parts", indManufacturing}, {"Patriot Benefits Group", indFinance},
	{"Horizon Support Services", indSupport}, {"Silver Lake Clinics", indHealthcare}, {"Trailhead Outfitters", indRetail},
	{"Canyon State Logistics", indLogistics}, {"Meridian Staffing Group", indStaffing}, {"Quantum Leaf Software", indTech},
	{"Riverbend Hospital System", indHealthcare}, {"Blue Ridge Building Supply", indRetail}, {"Heartland Tool & Die", indManufacturing},
	{"Capital Harbor Bank", indFinance}, {"Clearwater Call Solutions", indSupport}, {"Tidewater Home Care", indHealthcare},
	{"Frontier Fleet Services", indLogistics}, {"Crescent Staffing Partners", indStaffing}, {"Nimbus Cloud Systems", indTech},
	{"Golden State Pharmacy", indHealthcare},
}

// regionSuffixes tell apart companies beyond the name list: "Northwind Health Partners West".
var regionSuffixes = []string{"West", "East", "Central", "South", "North", "Southwest", "Northeast", "Pacific", "Mountain", "Gulf"}

var resumeFitTemplateNames = []string{
	"Engineering Resume Fit", "Nursing Licensure Screen", "Hourly Roles - Availability & Reliability", "Sales Experience Fit",
	"Finance & Accounting Fit", "Skilled Trades Certification Check", "Customer Support Fit", "Leadership Roles Fit",
	"Entry-Level Potential", "Bilingual Roles Screen",
}

var guideTemplateNames = []string{
	"Standard Behavioral Screen", "Technical Phone Screen", "Culture Add Interview", "High-Volume Hourly Screen",
	"Clinical Scenario Interview", "Manager Competency Interview", "Safety-First Screen", "Customer Empathy Interview",
}

// templateQuestions are the questions of interviewGuide templates, copied into guides.
var templateQuestions = []string{
	"Tell me about yourself and what drew you to this role.",
	"Describe a time you had to learn something new quickly.",
	"Tell me about a mistake you made at work and what you did about it.",
	"How do you handle feedback you disagree with?",
	"Describe a time you went above and beyond for a customer or coworker.",
	"What would your last manager say is your greatest strength?",
	"Tell me about a time you worked under a tight deadline.",
	"Why are you looking for a new role right now?",
}

var templateCriteria = [][2]string{
	{"Motivation", "Gives specific reasons for wanting the role."},
	{"Self-awareness", "Reflects honestly on strengths and mistakes."},
	{"Adaptability", "Shows how they adjust to change."},
	{"Communication", "Answers clearly and stays on topic."},
}

var genericNotes = []string{
	"Moved to the hiring manager round.", "Left a voicemail to schedule the next step.", "Candidate asked to reschedule; new invite sent.",
	"Salary expectations are above the range for this role.", "Salary expectations fit the range.", "References requested.",
	"Good answers, a bit brief; probe deeper next round.", "Not a fit for this role; keep for future openings.",
	"Strong interview; move to the hiring manager.", "Needs sponsorship; checking with legal.", "Offer extended, waiting on response.",
	"Candidate withdrew: accepted another offer.", "Background check started.", "Great culture fit according to the team.",
}

var recruiterReviews = []string{
	"Clear, structured answers with concrete examples.", "Good experience but struggled with the scenario questions.",
	"Excellent communicator; strong match for the role.", "Answers were vague; little evidence of hands-on work.",
	"Solid candidate, recommend a second interview.", "Great attitude and availability; hire.", "Not enough relevant experience.",
	"Very strong technical depth.", "Professional and well prepared.", "Mixed: strong on experience, weak on teamwork examples.",
}

var serviceReviews = []string{
	"Easy to do the interview on my phone.", "The questions were clear and fair.", "Loved being able to do it in the evening.",
	"A little robotic, but convenient.", "The audio cut out once.", "Quick and simple, thank you!", "I would have liked more time per answer.",
	"Much better than waiting for a phone screen.", "The instructions could be clearer.", "Great experience overall.",
}

var identityFailureReasons = []struct {
	reason string
	weight int
}{
	{"selfie mismatch", 30}, {"document expired", 25}, {"document unreadable", 20}, {"liveness check failed", 15}, {"name mismatch", 10},
}

var jobFailureReasons = []string{
	"The job description is too short to generate an interview guide.",
	"Interview guide generation timed out after 3 attempts.",
	"The job description is not in a supported language.",
}

var phoneCarriers = []string{"Verizon Wireless", "AT&T Mobility", "T-Mobile USA", "US Cellular", "Comcast Xfinity Mobile", "Google Voice", "TextNow", "Bandwidth.com"}

var emailDomains = []string{"example.com", "example.net", "example.org", "mail.example.com", "inbox.example.net"}

var komboStatuses = []string{"active", "active", "active", "syncing", "invalid"}

var decisionSyncPresets = [][][2]string{
	{{"status", "Interview Passed"}},
	{{"status", "Interview Passed"}, {"customText5", "AI Screen Complete"}},
	{{"stage", "Phone Screen Passed"}},
	{{"customField12", "Recommended"}, {"status", "Submitted"}},
}
