package mcpserver

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// maxAdminCompanies bounds listCompanies for platform admins, who may see every company.
const maxAdminCompanies = 100

func registerCompanies(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "listCompanies",
		Title: "List accessible companies",
		Description: "Lists the companies you may query, with their ids. Call it first to map a company name to the " +
			"companyId that every other tool accepts; the first company listed is the default when companyId is omitted. " +
			"Platform admins see every company and may filter by name with query; an admin without a company of their own has " +
			"no default and passes companyId to every other tool. companyId, like every tool's, names a " +
			"company you may query (refused otherwise); the list marks it as selected.",
	}, listCompanies)
}

// ListCompaniesInput are listCompanies' arguments.
type ListCompaniesInput struct {
	Query string `json:"query,omitempty" jsonschema:"substring filter on company names; only platform admins, who may list every company, use it"`
	toolkit.OptionalCompanyArg
}

// CompanyEntry is one listed company.
type CompanyEntry struct {
	ID      string `json:"id"`
	Slug    string `json:"slug"`
	Name    string `json:"name"`
	Primary bool   `json:"primary" jsonschema:"the default company when companyId is omitted"`
	// Selected marks the company of the call's companyId.
	Selected bool `json:"selected" jsonschema:"the company named by companyId (the primary company when companyId is omitted)"`
}

// ListCompaniesOutput is listCompanies' structured result.
type ListCompaniesOutput struct {
	Companies []CompanyEntry `json:"companies"`
	Truncated bool           `json:"truncated,omitempty"`
	// SelectedCompanyID is the call's company (companyId, else the primary company).
	SelectedCompanyID string `json:"selectedCompanyId" jsonschema:"the company named by companyId; the primary company when companyId is omitted; empty for a platform admin without a company of their own who named none"`
	toolkit.Notices
}

func listCompanies(ctx context.Context, call *toolkit.Call, in ListCompaniesInput) (ListCompaniesOutput, *toolkit.Text, error) {
	out := ListCompaniesOutput{Companies: []CompanyEntry{}}
	var primary uuid.UUID
	if len(call.Caller.CompanyIDs) > 0 {
		primary = call.Caller.CompanyIDs[0]
	}
	var selected uuid.UUID
	if call.Company != nil {
		selected = call.Company.ID
		out.SelectedCompanyID = selected.String()
	}
	db := call.DB
	var (
		q    string
		args []any
	)
	if call.Caller.PlatformAdmin {
		q = `SELECT id, slug, name FROM companies
		     WHERE name ILIKE $1 OR id = $4
		     ORDER BY id = $2 DESC, id = $4 DESC, lower(name), id LIMIT $3`
		args = []any{toolkit.LikeContains(in.Query), primary, maxAdminCompanies + 1, selected}
	} else {
		if in.Query != "" {
			call.Notice("query filters only platform admins' lists; showing all your companies")
		}
		q = `SELECT c.id, c.slug, c.name FROM unnest($1::uuid[]) WITH ORDINALITY AS a(id, n)
		     JOIN companies c ON c.id = a.id ORDER BY a.n`
		args = []any{uuidArray(call.Caller.CompanyIDs)}
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return out, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var e CompanyEntry
		var id uuid.UUID
		if err := rows.Scan(&id, &e.Slug, &e.Name); err != nil {
			return out, nil, err
		}
		e.ID, e.Primary, e.Selected = id.String(), id == primary, id == selected
		out.Companies = append(out.Companies, e)
	}
	if err := rows.Err(); err != nil {
		return out, nil, err
	}
	if len(out.Companies) > maxAdminCompanies {
		out.Companies, out.Truncated = out.Companies[:maxAdminCompanies], true
		call.Notice("showing the first %d companies; narrow the list with query", maxAdminCompanies)
	}

	var t toolkit.Text
	t.H1("Accessible companies (%d)", len(out.Companies))
	rowsOut := make([][]string, 0, len(out.Companies))
	for _, c := range out.Companies {
		var marks []string
		if c.Primary {
			marks = append(marks, "default")
		}
		if c.Selected {
			marks = append(marks, "selected (companyId)")
		}
		rowsOut = append(rowsOut, []string{c.Name, c.ID, c.Slug, strings.Join(marks, ", ")})
	}
	t.Table([]string{"Name", "companyId", "Slug", ""}, rowsOut, "No companies.")
	t.Blank()
	switch {
	case call.Company != nil:
		t.Line("This call's company: %s (%s).", call.Company.Name, call.Company.ID)
	case call.Caller.PlatformAdmin:
		t.Line("You are a platform admin without a company of your own: pass companyId to every other tool.")
	default:
		t.Line("You belong to no company, so no tool has data for you; ask an administrator for access.")
	}
	return out, &t, nil
}

func uuidArray(ids []uuid.UUID) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return s
}
