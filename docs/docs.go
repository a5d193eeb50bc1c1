// Package docs holds the product documentation (the markdown files of this folder), embedded so
// the tool server can index it for searchDocumentation (see internal/docsearch).
package docs

import "embed"

// FS holds every *.md file of this folder at its root, for example "jobs.md".
//
//go:embed *.md
var FS embed.FS
