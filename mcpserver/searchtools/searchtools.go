// Package searchtools holds the tool server's two searches: searchCandidates over the talent
// pool (internal/talent) and searchDocumentation over the product docs (internal/docsearch).
package searchtools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// Register adds searchCandidates and searchDocumentation to s.
func Register(s *mcp.Server, env *toolkit.Env) {
	registerCandidates(s, env)
	registerDocs(s, env)
}
