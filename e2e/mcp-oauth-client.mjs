// End-to-end OAuth sign-in to recruitd's tool server with the official MCP TypeScript client:
// discovery, dynamic registration, PKCE, the consent page and the identity provider's login form
// followed headlessly, then tools/list, a call in each of the user's companies, a refresh and a
// call with the refreshed token.
// Usage: MCP_URL=http://127.0.0.1:8081/mcp OAUTH_EMAIL=dana@demo.example.com OAUTH_PASSWORD=recruitd-demo \
//        node e2e/mcp-oauth-client.mjs
// Prints one line per check and exits non-zero when any fails.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, discoverAuthorizationServerMetadata, refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";

const url = new URL(process.env.MCP_URL);
const email = process.env.OAUTH_EMAIL;
const password = process.env.OAUTH_PASSWORD;
// A loopback redirect registered without a port and used with one (RFC 8252 7.3). Nothing listens
// there: the headless browser stops at the redirect and reads the code.
const registeredRedirect = "http://127.0.0.1/callback";
const redirect = "http://127.0.0.1:43117/callback";

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${!ok && detail ? ": " + detail : ""}`);
  if (!ok) failures++;
}

// browser is a minimal headless browser: a cookie jar and manual redirects.
const jar = new Map();
async function browse(target, init = {}) {
  let next = new URL(target);
  let opts = init;
  for (let hop = 0; hop < 15; hop++) {
    const cookies = [...jar.entries()].filter(([k]) => k.startsWith(next.host + " ")).map(([k, v]) => `${k.split(" ")[1]}=${v}`);
    const headers = { ...(opts.headers ?? {}) };
    if (cookies.length) headers.cookie = cookies.join("; ");
    const res = await fetch(next, { ...opts, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie?.() ?? []) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      jar.set(next.host + " " + pair.slice(0, i).trim(), pair.slice(i + 1));
    }
    const loc = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !loc) return { res, url: next, body: await res.text() };
    const to = new URL(loc, next);
    if (to.href.startsWith(redirect)) return { res, url: to, body: "" };
    next = to;
    opts = {};
  }
  throw new Error("too many redirects");
}

function formPost(body) {
  return { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body).toString() };
}

let code;
const store = {};
const provider = {
  get redirectUrl() { return redirect; },
  get clientMetadata() {
    return { client_name: "recruitd e2e (TypeScript SDK)", redirect_uris: [registeredRedirect], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientInformation() { return store.client; },
  saveClientInformation(info) { store.client = info; },
  tokens() { return store.tokens; },
  saveTokens(t) { store.tokens = t; },
  saveCodeVerifier(v) { store.verifier = v; },
  codeVerifier() { return store.verifier; },
  async redirectToAuthorization(authorizationUrl) {
    // The client registered a portless loopback redirect and uses a port: the server must accept it.
    const consent = await browse(authorizationUrl);
    const id = /name="id" value="([^"]+)"/.exec(consent.body)?.[1];
    check(consent.res.status === 200 && id && consent.body.includes("127.0.0.1:43117"), "consent page names the client's redirect host", consent.body.slice(0, 200));
    const login = await browse(new URL("/oauth/authorize", authorizationUrl), formPost({ id, decision: "allow" }));
    const loginID = /name="id" value="([^"]+)"/.exec(login.body)?.[1];
    check(login.res.status === 200 && loginID, "consent leads to the identity provider's login form", `${login.res.status} ${login.body.slice(0, 200)}`);
    const back = await browse(new URL("/login/username", login.url), formPost({ id: loginID, username: email, password }));
    code = back.url.searchParams.get("code");
    check(!!code && back.url.searchParams.get("iss") === url.origin, "the client's redirect receives a code and iss", back.url.href);
  },
};

const connect = async () => {
  const client = new Client({ name: "recruitd-e2e-oauth", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
};

try {
  await connect();
  check(false, "a client without tokens is sent to sign in", "connected without signing in");
} catch (err) {
  check(err instanceof UnauthorizedError, "a client without tokens is sent to sign in", String(err));
}
const pending = new StreamableHTTPClientTransport(url, { authProvider: provider });
await pending.finishAuth(code);
check(store.tokens?.access_token?.startsWith("rmcp_at_") && !!store.tokens?.refresh_token, "the code is exchanged for the server's own tokens");

let { client } = await connect();
const tools = await client.listTools();
check(tools.tools.length === 18, "tools/list returns the 18 tools", `${tools.tools.length}`);
const companies = (await client.callTool({ name: "listCompanies", arguments: {} })).structuredContent?.companies ?? [];
check(companies.length >= 2, "listCompanies lists the user's two companies", JSON.stringify(companies));
for (const c of companies.slice(0, 2)) {
  const r = await client.callTool({ name: "getCompanyFeatures", arguments: { companyId: c.id } });
  check(!r.isError, `getCompanyFeatures in ${c.slug}`, JSON.stringify(r.content).slice(0, 200));
}
await client.close();

const metadata = await discoverAuthorizationServerMetadata(url.origin);
const old = store.tokens;
const refreshed = await refreshAuthorization(url.origin, { metadata, clientInformation: store.client, refreshToken: old.refresh_token, resource: url });
check(refreshed.access_token !== old.access_token && refreshed.refresh_token !== old.refresh_token, "refresh rotates both tokens");
store.tokens = refreshed;
({ client } = await connect());
const again = await client.callTool({ name: "getCompanyFeatures", arguments: { companyId: companies[1]?.id } });
check(!again.isError, "a call with the refreshed token succeeds", JSON.stringify(again.content).slice(0, 200));
await client.close();

console.log(failures ? `\nFAIL (${failures})` : "\nPASS");
process.exit(failures ? 1 : 0);
