package generate

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestZZErr(t *testing.T) {
	for _, reply := range []func(int, http.ResponseWriter, *http.Request){
		ok("Sure! Here is your guide: {" + strings.Repeat("x", 5000)),
		ok(strings.Replace(validOutput, `"skills"`, `"extra": 1, "skills"`, 1)),
		func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error": {"message": "Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`, http.StatusUnauthorized)
		},
	} {
		_, o := newFake(t, reply)
		_, err := o.Generate(context.Background(), backendRequest)
		fmt.Println(err)
	}
}
