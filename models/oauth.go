package models

// OAuth client kinds (oauth_clients.kind): registered through /oauth/register, or an https
// client_id whose Client ID Metadata Document was fetched.
const (
	OAuthClientRegistered       = "registered"
	OAuthClientMetadataDocument = "metadata_document"
)

// AllOAuthClientKinds returns every OAuth client kind.
func AllOAuthClientKinds() []string {
	return []string{OAuthClientRegistered, OAuthClientMetadataDocument}
}

// AllTokenEndpointAuthMethods returns the token endpoint authentication methods the
// authorization server supports (oauth_clients.token_endpoint_auth_method).
func AllTokenEndpointAuthMethods() []string {
	return []string{"none", "client_secret_post", "client_secret_basic"}
}

// OAuth token kinds (oauth_tokens.kind).
const (
	OAuthTokenAccess  = "access"
	OAuthTokenRefresh = "refresh"
)

// AllOAuthTokenKinds returns every OAuth token kind.
func AllOAuthTokenKinds() []string { return []string{OAuthTokenAccess, OAuthTokenRefresh} }
