package jsontext

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCheck measures Check on bodies that grow tenfold: rows of nested objects, arrays and
// strings (time should grow about tenfold too), and bodies nested far deeper than MaxDepth
// (refused at MaxDepth, so their time should not grow at all). Run it with
//
//	go test -run '^$' -bench Check -cpu 1 ./internal/jsontext/
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		body := []byte(rows(n))
		b.Run("rows="+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := Check(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, depth := range []int{400, 4000} {
		body := []byte(nestedObjects(depth, `"x"`))
		b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := Check(body); err != ErrTooDeep {
					b.Fatal(err)
				}
			}
		})
	}
}

// rows is a JSON array of n objects about 200 bytes each, eight levels deep (500 rows: 100 KB;
// 50,000: 10 MB, ten times the default body limit).
func rows(n int) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"id":"r` + strconv.Itoa(i) + `","candidate":{"firstName":"Ada","tags":["a","b"],` +
			`"address":{"city":"Zürich","geo":{"lat":47.37,"lng":8.54}}},` +
			`"steps":[{"condition":{"all":[{"field":"job.id","value":["C:\\u0000",1,null]}]}}]}`)
	}
	sb.WriteByte(']')
	return sb.String()
}
