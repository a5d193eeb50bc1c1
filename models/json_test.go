package models

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestJSONValue(t *testing.T) {
	check := func(name string, got any, err error, want any) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s.Value() = %#v, %v, want %#v", name, got, err, want)
		}
	}
	v, err := JSON[[]SyncField]{}.Value()
	check("JSON[[]SyncField]{}", v, err, "[]")
	v, err = NewJSON([]SyncField{{Field: "stage", Value: "Hired"}}).Value()
	check("JSON[[]SyncField]", v, err, `[{"field":"stage","value":"Hired"}]`)
	v, err = JSON[map[string]bool]{}.Value()
	check("JSON[map[string]bool]{}", v, err, "{}")
	v, err = NewJSON(map[string]bool{FeatureResumeFit: true}).Value()
	check("JSON[map[string]bool]", v, err, `{"resume_fit":true}`)
	v, err = JSON[GenerationOptions]{}.Value()
	check("JSON[GenerationOptions]{}", v, err, "{}")
	v, err = JSON[*GenerationOptions]{}.Value()
	check("JSON[*GenerationOptions]{}", v, err, nil)
}

func TestJSONScan(t *testing.T) {
	var f JSON[map[string]bool]
	if err := f.Scan([]byte(`{"coordinator":true,"custom_logo":false}`)); err != nil {
		t.Fatal(err)
	}
	if want := map[string]bool{"coordinator": true, "custom_logo": false}; !reflect.DeepEqual(f.V, want) {
		t.Errorf("Scan = %v, want %v", f.V, want)
	}
	if err := f.Scan(`{"talent_match":true}`); err != nil || len(f.V) != 1 || !f.V["talent_match"] {
		t.Errorf("second Scan = %v, %v, want only talent_match (no leftovers)", f.V, err)
	}
	if err := f.Scan(nil); err != nil || f.V != nil {
		t.Errorf("Scan(nil) = %v, %v, want nil map", f.V, err)
	}
	if err := f.Scan(`[1]`); err == nil {
		t.Errorf("Scan([1]) into a map succeeded, want error")
	}
	if err := f.Scan(7); err == nil {
		t.Errorf("Scan(7) succeeded, want error")
	}
}

func TestJSONEncodesAsBareValue(t *testing.T) {
	active := false
	in := struct {
		Opts JSON[GenerationOptions] `json:"opts"`
	}{NewJSON(GenerationOptions{AdditionalQuestions: []string{"Why us?"}, Active: &active})}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"opts":{"additionalQuestions":["Why us?"],"active":false}}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var out struct {
		Opts JSON[GenerationOptions] `json:"opts"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Opts, in.Opts) {
		t.Errorf("Unmarshal = %+v, want %+v", out.Opts, in.Opts)
	}
}
