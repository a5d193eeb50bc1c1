package store_test

import (
	"bytes"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func newStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func company(t *testing.T, st *store.Store, slug string) *models.Company {
	t.Helper()
	c := &models.Company{Slug: slug, Name: slug, DefaultJobStatus: models.JobStatusActive}
	if err := st.CreateCompany(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// technicianJob stores a job of co with status.
func technicianJob(t *testing.T, st *store.Store, co *models.Company, status models.JobStatus) *models.Job {
	t.Helper()
	job := &models.Job{CompanyID: co.ID, ExternalID: "J-1", InterviewerID: co.Slug + "-J-1", Title: "Technician", ExternalTitle: "Technician",
		Description: "d", Status: status, IsOpen: true}
	if err := st.DB().Create(job).Error; err != nil {
		t.Fatal(err)
	}
	return job
}

// invite stores a manual video invitation of cand to job, its session open for an hour.
func invite(t *testing.T, st *store.Store, job *models.Job, cand store.CandidateInput) *store.Invitation {
	t.Helper()
	inv, err := st.CreateInvitation(t.Context(), store.InvitationInput{CompanyID: job.CompanyID, JobID: job.ID, SessionID: uuid.New(),
		Candidate: cand, Source: models.ApplicationSource("manual"), Medium: models.MediumTypeVideo,
		ExpiresAt: time.Now().Add(time.Hour), FlowWorkflowID: "flow/" + job.ExternalID})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestCompanies(t *testing.T) {
	st := newStore(t)
	c := company(t, st, "acme")
	if err := st.CreateCompany(t.Context(), &models.Company{Slug: "acme", Name: "again", DefaultJobStatus: models.JobStatusActive}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate slug: err = %v, want ErrConflict", err)
	}
	got, err := st.CompanyBySlug(t.Context(), "acme")
	if err != nil || got.ID != c.ID {
		t.Errorf("CompanyBySlug = %v, %v", got, err)
	}
	if _, err := st.CompanyBySlug(t.Context(), "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CompanyBySlug(nope) err = %v, want ErrNotFound", err)
	}
}

func TestAPIKeys(t *testing.T) {
	st := newStore(t)
	acme, globex := company(t, st, "acme"), company(t, st, "globex")
	key, _ := apikey.Generate()
	k, err := st.CreateAPIKey(t.Context(), acme.ID, "ci", key)
	if err != nil {
		t.Fatal(err)
	}
	if k.Prefix != key[:apikey.PrefixLen] || bytes.Contains(k.KeyHash, []byte(key[apikey.PrefixLen:])) {
		t.Errorf("stored key = %+v", k)
	}
	if _, err := st.CreateAPIKey(t.Context(), globex.ID, "copy", key); !errors.Is(err, store.ErrConflict) {
		t.Errorf("same key twice: err = %v, want ErrConflict", err)
	}
	// Two keys may share a prefix (a chosen demo key can); each still resolves to its own company.
	twin := key[:apikey.PrefixLen] + "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
	if _, err := st.CreateAPIKey(t.Context(), globex.ID, "twin", twin); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{key: "acme", twin: "globex"} {
		c, _, err := st.Authenticate(t.Context(), k)
		if err != nil || c.Slug != want {
			t.Errorf("Authenticate(%s…) = %v, %v; want %s", k[:14], c, err, want)
		}
	}
	if _, err := st.RevokeAPIKey(t.Context(), acme.ID, key[:apikey.PrefixLen]); err != nil {
		t.Fatalf("revoke by prefix: %v", err)
	}
	if _, _, err := st.Authenticate(t.Context(), key); !errors.Is(err, store.ErrRevokedKey) {
		t.Errorf("revoked key: err = %v, want ErrRevokedKey", err)
	}
	if c, _, err := st.Authenticate(t.Context(), twin); err != nil || c.Slug != "globex" {
		t.Errorf("revoking acme's key touched globex's: %v, %v", c, err)
	}
	// A company cannot revoke another company's key, even knowing its id.
	gk, _ := st.ListAPIKeys(t.Context(), globex.ID)
	if _, err := st.RevokeAPIKey(t.Context(), acme.ID, gk[0].ID.String()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke a foreign key: err = %v, want ErrNotFound", err)
	}
	if _, _, err := st.Authenticate(t.Context(), "not-a-real-key-but-long-enough"); !errors.Is(err, store.ErrUnknownKey) {
		t.Errorf("unknown key: err = %v", err)
	}
}

func TestATSCredentialsAreEncryptedPerCompany(t *testing.T) {
	st := newStore(t)
	acme, globex := company(t, st, "acme"), company(t, st, "globex")
	box, _ := secretbox.New(bytes.Repeat([]byte{1}, 32))
	creds := map[string]string{"baseUrl": "https://ats.example.com", "apiKey": "s3cret", "empty": ""}
	if err := st.SetATSCredentials(t.Context(), acme.ID, box, creds); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	var fields models.StringArray
	if err := st.SQL().QueryRow(`SELECT ats_credentials, ats_credential_fields FROM companies WHERE id = $1`, acme.ID).Scan(&raw, &fields); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("s3cret")) {
		t.Error("credentials stored in clear")
	}
	if len(fields) != 2 || fields[0] != "apiKey" || fields[1] != "baseUrl" {
		t.Errorf("credential fields = %v, want [apiKey baseUrl]", fields)
	}
	got, err := st.ATSCredentials(t.Context(), acme.ID, box)
	if err != nil || got["apiKey"] != "s3cret" {
		t.Errorf("ATSCredentials = %v, %v", got, err)
	}
	// Ciphertext copied to another company's row does not open there.
	if _, err := st.SQL().Exec(`UPDATE companies SET ats_credentials = $1 WHERE id = $2`, raw, globex.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ATSCredentials(t.Context(), globex.ID, box); !errors.Is(err, secretbox.ErrOpen) {
		t.Errorf("moved ciphertext: err = %v, want ErrOpen", err)
	}
}

func TestOpenAppliesSettingsToEveryConnection(t *testing.T) {
	db := pgtest.New(t)
	st, err := store.Open(t.Context(), db.URL, 3, nil, map[string]string{"jit": "off", "work_mem": "48MB"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Hold three connections at once so each is a separate session.
	conns := make([]*sql.Conn, 3)
	for i := range conns {
		if conns[i], err = st.SQL().Conn(t.Context()); err != nil {
			t.Fatal(err)
		}
		defer conns[i].Close()
	}
	for i, c := range conns {
		var jit, workMem string
		if err := c.QueryRowContext(t.Context(), "SELECT current_setting('jit'), current_setting('work_mem')").Scan(&jit, &workMem); err != nil {
			t.Fatal(err)
		}
		if jit != "off" || workMem != "48MB" {
			t.Errorf("connection %d: jit=%s work_mem=%s, want off and 48MB", i, jit, workMem)
		}
	}
}

// TestPartnerSecretsAreBoundToTheirRowAndColumn: a sealed partner secret swapped into another
// partner's row, or into the other column of its own row, does not open.
func TestPartnerSecretsAreBoundToTheirRowAndColumn(t *testing.T) {
	st := newStore(t)
	acme := company(t, st, "acme")
	box, _ := secretbox.New(bytes.Repeat([]byte{1}, 32))
	a := &models.Partner{CompanyID: acme.ID, Name: "a", CallbackURL: "https://a.example.com/cb"}
	b := &models.Partner{CompanyID: acme.ID, Name: "b", CallbackURL: "https://b.example.com/cb"}
	for _, p := range []*models.Partner{a, b} {
		if err := st.CreatePartner(t.Context(), box, p, store.PartnerSecrets{CallbackSecret: "cbs_" + p.Name, SigningSecret: "whsec_" + p.Name}); err != nil {
			t.Fatal(err)
		}
	}
	if sec, err := store.OpenPartnerSecrets(box, a); err != nil || sec.CallbackSecret != "cbs_a" || sec.SigningSecret != "whsec_a" {
		t.Fatalf("OpenPartnerSecrets(a) = %+v, %v", sec, err)
	}
	swapped := *b
	swapped.CallbackSecret = a.CallbackSecret
	if _, err := store.OpenPartnerSecrets(box, &swapped); !errors.Is(err, secretbox.ErrOpen) {
		t.Errorf("a's callback secret in b's row: err = %v, want ErrOpen", err)
	}
	crossed := *a
	crossed.CallbackSecret, crossed.SigningSecret = a.SigningSecret, a.CallbackSecret
	if _, err := store.OpenPartnerSecrets(box, &crossed); !errors.Is(err, secretbox.ErrOpen) {
		t.Errorf("columns swapped: err = %v, want ErrOpen", err)
	}
}
