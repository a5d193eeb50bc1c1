// Package api embeds the REST contract (OpenAPI 3.1), served at /openapi.yaml and checked in tests.
package api

import _ "embed"

// OpenAPI is api/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
