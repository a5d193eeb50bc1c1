// Package docsearch answers how-to questions from the product documentation (docs/*.md), for
// the searchDocumentation tool of the MCP server.
//
// [Sync] splits every document into sections at its headings of level 1 to 3 ([Parse]) and
// stores them in doc_sections, whose generated tsvector weighs the section title over the
// document title over the body. It rebuilds the table only when the documents' content hash
// changes, so servers call it at start:
//
//	changed, err := docsearch.Sync(ctx, db, docs.FS)
//
// [Search] ranks the sections with Postgres full-text search and answers with a few quoted
// sentences of the best ones and a citation (title, link, snippet) for each section quoted:
//
//	ans, err := docsearch.Search(ctx, db, "how do I create a job", links.Doc) // links: a links.Builder
//	// ans.Text is markdown; ans.Points and ans.Citations the same, structured.
//
// Links are what docURL builds of the document name and the heading's GitHub-style anchor (links.Builder.Doc: <base>/docs/<name>#<anchor>).
package docsearch
