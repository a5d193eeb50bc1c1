// Command gen converts the GeoNames cities1000 dump into the gazetteer's embedded table.
//
// Usage (from internal/gazetteer, see SOURCE.md for where cities1000.txt comes from):
//
//	go run ./internal/gen -src /path/to/cities1000.txt -out places.tsv.gz
//
// It keeps the populated places of the United States and Puerto Rico (feature class P, without
// abandoned, historical or destroyed places) and writes one line per place, sorted by state then
// name:
//
//	name <TAB> ascii name (empty when equal) <TAB> state USPS code <TAB> lat <TAB> lon <TAB> population <TAB> feature code
//
// Coordinates are rounded to 4 decimals (about 11 m). The output is gzip'd with the best
// compression and a zero header time, so the same input always gives the same bytes.
package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
)

type row struct {
	name, ascii, state, code string
	lat, lon                 float64
	pop                      int
}

// kept are the GeoNames feature codes of living populated places.
var kept = map[string]bool{
	"PPL": true, "PPLA": true, "PPLA2": true, "PPLA3": true, "PPLA4": true, "PPLA5": true,
	"PPLC": true, "PPLG": true, "PPLL": true, "PPLS": true, "PPLX": true, "PPLF": true, "PPLR": true,
}

func main() {
	src := flag.String("src", "", "path to GeoNames cities1000.txt")
	out := flag.String("out", "places.tsv.gz", "output file")
	flag.Parse()
	if *src == "" {
		log.Fatal("gen: -src is required (see SOURCE.md)")
	}
	rows, err := read(*src)
	if err != nil {
		log.Fatalf("gen: %v", err)
	}
	if err := write(*out, rows); err != nil {
		log.Fatalf("gen: %v", err)
	}
	fmt.Fprintf(os.Stderr, "gen: wrote %d places to %s\n", len(rows), *out)
}

func read(path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 19 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 19", path, line, len(fields))
		}
		country, code := fields[8], fields[7]
		if (country != "US" && country != "PR") || fields[6] != "P" || !kept[code] {
			continue
		}
		state := fields[10]
		if country == "PR" {
			state = "PR"
		}
		if len(state) != 2 {
			continue
		}
		lat, err1 := strconv.ParseFloat(fields[4], 64)
		lon, err2 := strconv.ParseFloat(fields[5], 64)
		pop, err3 := strconv.Atoi(fields[14])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("%s:%d: bad number", path, line)
		}
		r := row{name: fields[1], ascii: fields[2], state: state, code: code, lat: lat, lon: lon, pop: pop}
		if r.ascii == r.name {
			r.ascii = ""
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.state, b.state), cmp.Compare(a.name, b.name), cmp.Compare(b.pop, a.pop),
			cmp.Compare(a.lat, b.lat), cmp.Compare(a.lon, b.lon))
	})
	return rows, nil
}

func write(path string, rows []row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.name, r.ascii, r.state,
			strconv.FormatFloat(r.lat, 'f', 4, 64), strconv.FormatFloat(r.lon, 'f', 4, 64), r.pop, r.code)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
