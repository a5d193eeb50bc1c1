// Package devidp is the local OpenID provider of recruitd dev and of the OAuth tests: zitadel/oidc's
// example provider (op, in memory, a login form with username and password) with recruitd's demo
// identities. Its signing keys are generated per process and its token encryption key is the
// example's fixed one: development only, never production.
package devidp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Password is every demo identity's password.
const Password = "recruitd-demo"

// Identity is an account at the local identity provider; its username is its e-mail.
type Identity struct {
	Email    string
	Name     string
	Verified bool
	// Note says what signing in as this identity shows (printed by recruitd dev).
	Note string
}

// Demo identities: their e-mails and what recruitd knows about them (EnsureDemoUsers).
var (
	Member     = Identity{"dana@demo.example.com", "Dana Demo", true, "member of both demo companies"}
	Admin      = Identity{"admin@demo.example.com", "Ada Admin", true, "platform admin"}
	Former     = Identity{"former@demo.example.com", "Fiona Former", true, "soft-deleted user: sign-in refused"}
	Stranger   = Identity{"stranger@example.org", "Sam Stranger", true, "no recruitd account: sign-in refused"}
	Unverified = Identity{"unverified@demo.example.com", "Uma Unverified", false, "e-mail not verified by the provider: sign-in refused"}
)

// DemoIdentities lists the demo identities in the order recruitd dev prints them.
func DemoIdentities() []Identity { return []Identity{Member, Admin, Former, Stranger, Unverified} }

// Client is the relying party recruitd's tool server is at this provider.
type Client struct {
	ID, Secret string
	// RedirectURIs are the tool server's callback URLs ({mcp_url}/oauth/callback).
	RedirectURIs []string
}

// New returns the provider's handler, serving issuer (scheme, host and port, no path: the login
// form posts to /login/username).
func New(issuer string, client Client, identities []Identity) http.Handler {
	users := userStore{}
	for i, id := range identities {
		first, last, _ := strings.Cut(id.Name, " ")
		users[fmt.Sprintf("u%d", i+1)] = &storage.User{
			ID: fmt.Sprintf("u%d", i+1), Username: id.Email, Password: Password, FirstName: first, LastName: last,
			Email: id.Email, EmailVerified: id.Verified, PreferredLanguage: language.English,
		}
	}
	c := storage.WebClient(client.ID, client.Secret, client.RedirectURIs...)
	st := storage.NewStorageWithClients(users, map[string]*storage.Client{c.GetID(): c})
	return exampleop.SetupServer(strings.TrimSuffix(issuer, "/"), st, nil, false)
}

type userStore map[string]*storage.User

func (u userStore) GetUserByID(id string) *storage.User { return u[id] }

func (u userStore) GetUserByUsername(name string) *storage.User {
	for _, x := range u {
		if strings.EqualFold(x.Username, strings.TrimSpace(name)) {
			return x
		}
	}
	return nil
}

func (u userStore) ExampleClientID() string { return "service" }

// EnsureDemoUsers makes recruitd's side of the demo identities: Member in the demo company and
// in one more company (the first other one created), Admin a platform admin, Former a
// soft-deleted user; Stranger and Unverified stay unknown. It returns the companies of Member.
func EnsureDemoUsers(ctx context.Context, st *store.Store, demoSlug string) ([]models.Company, error) {
	demo, err := st.CompanyBySlug(ctx, demoSlug)
	if err != nil {
		return nil, err
	}
	companies := []models.Company{*demo}
	var other models.Company
	err = st.DB().WithContext(ctx).Where("id <> ?", demo.ID).Order("created_at, slug").Take(&other).Error
	if err == nil {
		companies = append(companies, other)
	} else if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fmt.Errorf("find a second demo company: %w", err)
	}
	member, err := st.EnsureUser(ctx, Member.Email, Member.Name, false)
	if err != nil {
		return nil, err
	}
	for _, c := range companies {
		if err := st.EnsureMembership(ctx, c.ID, member.ID, models.MembershipRoleRecruiter); err != nil {
			return nil, err
		}
	}
	if _, err := st.EnsureUser(ctx, Admin.Email, Admin.Name, true); err != nil {
		return nil, err
	}
	var n int64
	if err := st.DB().WithContext(ctx).Unscoped().Model(&models.User{}).
		Where("lower(email) = ? AND deleted_at IS NOT NULL", Former.Email).Count(&n).Error; err != nil {
		return nil, fmt.Errorf("find the former demo user: %w", err)
	}
	if n == 0 {
		former, err := st.EnsureUser(ctx, Former.Email, Former.Name, false)
		if err != nil {
			return nil, err
		}
		if err := st.EnsureMembership(ctx, demo.ID, former.ID, models.MembershipRoleViewer); err != nil {
			return nil, err
		}
		if err := st.DB().WithContext(ctx).Delete(former).Error; err != nil {
			return nil, fmt.Errorf("soft-delete the former demo user: %w", err)
		}
	}
	return companies, nil
}
