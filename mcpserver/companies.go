package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/store"
)

type tools struct {
	store *store.Store
	log   *slog.Logger
}

func (t *tools) register(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:  "listCompanies",
		Title: "List accessible companies",
		Description: "Lists the companies you may query, with their ids. Call it first to map a company name to the " +
			"companyId that every other tool accepts; the first company listed is the default when companyId is omitted.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, t.listCompanies)
}

// ListCompaniesInput are listCompanies' arguments.
type ListCompaniesInput struct {
	Query string `json:"query,omitempty" jsonschema:"substring filter on company names; only platform admins, who may list every company, use it"`
}

// CompanyEntry is one listed company.
type CompanyEntry struct {
	ID      string `json:"id"`
	Slug    string `json:"slug"`
	Name    string `json:"name"`
	Primary bool   `json:"primary"`
}

// ListCompaniesOutput is listCompanies' structured result.
type ListCompaniesOutput struct {
	Companies []CompanyEntry `json:"companies"`
}

func (t *tools) listCompanies(ctx context.Context, _ *mcp.CallToolRequest, in ListCompaniesInput) (*mcp.CallToolResult, ListCompaniesOutput, error) {
	caller := callerFrom(ctx)
	var out ListCompaniesOutput
	ids := caller.CompanyIDs
	for i, id := range ids {
		c, err := t.store.Company(ctx, id)
		if err != nil {
			return nil, out, t.internal(ctx, err)
		}
		out.Companies = append(out.Companies, CompanyEntry{ID: c.ID.String(), Slug: c.Slug, Name: c.Name, Primary: i == 0})
	}
	if caller.PlatformAdmin && in.Query != "" {
		out.Companies = filterByName(out.Companies, in.Query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Accessible companies (%d)\n\n", len(out.Companies))
	for _, c := range out.Companies {
		primary := ""
		if c.Primary {
			primary = "  (default)"
		}
		fmt.Fprintf(&b, "- %s — companyId: %s, slug: %s%s\n", c.Name, c.ID, c.Slug, primary)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

func filterByName(cs []CompanyEntry, q string) []CompanyEntry {
	q = strings.ToLower(q)
	var out []CompanyEntry
	for _, c := range cs {
		if strings.Contains(strings.ToLower(c.Name), q) {
			out = append(out, c)
		}
	}
	return out
}

// internal logs err and returns a tool error that carries no internals.
func (t *tools) internal(ctx context.Context, err error) error {
	ref := uuid.NewString()[:8]
	t.log.ErrorContext(ctx, "tool failed", "ref", ref, "err", err)
	return fmt.Errorf("internal error (ref %s)", ref)
}
