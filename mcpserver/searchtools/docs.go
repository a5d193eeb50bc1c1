package searchtools

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/docs"
	"github.com/recruitd/recruitd/internal/docsearch"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// DocsInput are searchDocumentation's arguments.
type DocsInput struct {
	toolkit.CompanyArg
	Query string `json:"query" jsonschema:"a how-to question about the product, for example 'how do I connect my ATS' or 'how do I verify partner callback signatures'"`
}

// DocsOutput is searchDocumentation's structured result.
type DocsOutput struct {
	docsearch.Answer
	toolkit.Notices
}

// docIndex syncs the embedded docs into Postgres once per process (Sync itself is cheap when the
// content hash is unchanged, and safe across processes); a failed sync is retried next call.
type docIndex struct {
	mu     sync.Mutex
	synced bool
}

func (d *docIndex) ensure(ctx context.Context, env *toolkit.Env) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.synced {
		return nil
	}
	if _, err := docsearch.Sync(ctx, env.Store.SQL(), docs.FS); err != nil {
		return err
	}
	d.synced = true
	return nil
}

func registerDocs(s *mcp.Server, env *toolkit.Env) {
	idx := &docIndex{}
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "searchDocumentation",
		Title: "Search the product documentation",
		Description: "Answers how-to questions about the product (creating jobs, connecting an ATS or HR suite, configuring " +
			"workflows, partner callbacks and signatures, assessment links, connecting MCP clients, integrity checks, templates) " +
			"from its documentation: a short extract quoting the best sections, each point numbered with a citation link. " +
			"Use it for 'how do I…' and 'what happens when…' questions, not for questions about a company's data. " +
			"Quote the citation links so the user can read more.",
	}, func(ctx context.Context, call *toolkit.Call, in DocsInput) (DocsOutput, *toolkit.Text, error) {
		if err := idx.ensure(ctx, env); err != nil {
			return DocsOutput{}, nil, err
		}
		// The documentation is the same for every company; companyId is accepted (and checked) for
		// uniformity with the other tools.
		ans, err := docsearch.Search(ctx, env.Store.SQL(), in.Query, env.Links.Base())
		if errors.Is(err, docsearch.ErrEmptyQuery) || errors.Is(err, docsearch.ErrQueryTooLong) {
			return DocsOutput{}, nil, toolkit.Errorf("%v", err)
		}
		if err != nil {
			return DocsOutput{}, nil, err
		}
		var t toolkit.Text
		t.H1("Documentation: %s", in.Query)
		t.Line("%s", ans.Text)
		return DocsOutput{Answer: *ans}, &t, nil
	})
}
