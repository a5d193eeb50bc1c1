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

// docsHash is the content hash of the embedded docs, which the index must have been built from.
var docsHash = sync.OnceValues(func() (string, error) { return docsearch.Hash(docs.FS) })

// checkIndex refuses to answer from an index that was never built, and notices one built from
// other docs than this server's. The index is built by recruitd migrate; the tool server only
// reads it.
func checkIndex(ctx context.Context, call *toolkit.Call) error {
	want, err := docsHash()
	if err != nil {
		return err
	}
	have, err := docsearch.IndexedHash(ctx, call.DB)
	if err != nil {
		return err
	}
	switch {
	case have == "":
		return toolkit.Errorf("the documentation index has not been built on this server's database; it is built by `recruitd migrate` " +
			"(and by recruitd dev): ask an operator to run it, then ask again")
	case have != want:
		call.Notice("the documentation index was built from another version of the docs than this server's, so answers may be out of date; " +
			"`recruitd migrate` rebuilds it")
	}
	return nil
}

func registerDocs(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "searchDocumentation",
		Title: "Search the product documentation",
		Description: "Answers how-to questions about the product (creating jobs, connecting an ATS or HR suite, configuring " +
			"workflows, partner callbacks and signatures, assessment links, connecting MCP clients, integrity checks, templates) " +
			"from its documentation: a short extract quoting the best sections, each point numbered with a citation link. " +
			"Use it for 'how do I…' and 'what happens when…' questions, not for questions about a company's data. " +
			"Quote the citation links so the user can read more.",
	}, func(ctx context.Context, call *toolkit.Call, in DocsInput) (DocsOutput, *toolkit.Text, error) {
		if err := checkIndex(ctx, call); err != nil {
			return DocsOutput{}, nil, err
		}
		// The documentation is the same for every company; companyId is accepted (and checked) for
		// uniformity with the other tools.
		ans, err := docsearch.Search(ctx, call.DB, in.Query, env.Links.Doc)
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
