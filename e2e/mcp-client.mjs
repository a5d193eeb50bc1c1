// End-to-end check of recruitd's tool server with the official MCP TypeScript client.
// Usage: MCP_URL=http://127.0.0.1:8081/mcp MCP_API_KEY=rk_... MCP_BASE_URL=http://127.0.0.1:8081 node e2e/mcp-client.mjs
// Prints one line per check and exits non-zero when any fails (go test ./cmd/recruitd runs it).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.env.MCP_URL);
const key = process.env.MCP_API_KEY;
const base = process.env.MCP_BASE_URL;
const expectedTools = [
  "listCompanies", "searchCandidates", "searchDocumentation", "getJobDetails", "getJobsSummary",
  "getCandidatePipelineStats", "getPositionStats", "getInterviewGuideDetails", "getInterviewStats",
  "getInterviewTimeOfDayBreakdown", "getCandidateReport", "getCheatingDetectionStats",
  "getFraudVerificationStats", "getIdentityVerificationStats", "getCandidateVerification",
  "getCompanyFeatures", "getAtsConnection", "listTemplates",
];

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${!ok && detail ? ": " + detail : ""}`);
  if (!ok) failures++;
}

// 1. Unauthenticated: 401 with the Bearer challenge, through plain fetch and through the client.
const res = await fetch(url, {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
});
const challenge = res.headers.get("www-authenticate") ?? "";
check(res.status === 401, "unauthenticated tools/list answers 401", `got ${res.status}`);
check(
  challenge.startsWith(`Bearer realm="${base}", resource_metadata="${base}/.well-known/oauth-protected-resource"`),
  "WWW-Authenticate carries realm and resource_metadata", challenge,
);
try {
  const anon = new Client({ name: "recruitd-e2e-anonymous", version: "1.0.0" });
  await anon.connect(new StreamableHTTPClientTransport(url));
  check(false, "the client without a token is refused", "connect succeeded");
} catch (err) {
  check(/401|nauthorized/.test(String(err)), "the client without a token is refused", String(err));
}

// 2. Authenticated session.
const client = new Client({ name: "recruitd-e2e", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
check(client.getServerVersion()?.name === "recruitd", "initialize reports the recruitd server", JSON.stringify(client.getServerVersion()));

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
check(JSON.stringify(names) === JSON.stringify([...expectedTools].sort()), "tools/list shows the 18 tools", names.join(","));
for (const t of tools) {
  const ok = t.inputSchema?.type === "object" && t.outputSchema?.type === "object" &&
    t.annotations?.readOnlyHint === true && (t.description ?? "").length >= 60;
  check(ok, `${t.name} has input and output schemas, readOnlyHint and a description`, JSON.stringify({ input: t.inputSchema?.type, output: t.outputSchema?.type, annotations: t.annotations }));
}

// 3. Every tool answers; later arguments come from earlier answers, as an assistant would chain them.
async function call(name, args = {}, meta) {
  const started = Date.now();
  const r = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
  const text = r.content?.[0]?.type === "text" ? r.content[0].text : "";
  const ok = !r.isError && text.length > 0 && typeof r.structuredContent === "object";
  check(ok, `tools/call ${name}(${JSON.stringify(args)}) in ${Date.now() - started} ms`, text.slice(0, 300));
  return r.structuredContent ?? {};
}

const companies = await call("listCompanies");
const companyId = companies.companies?.[0]?.id;
check(typeof companyId === "string", "listCompanies returns the key's company id");
const summary = await call("getJobsSummary", { limit: 5, companyId });
const jobId = summary.jobs?.[0]?.id;
check(typeof jobId === "string", "getJobsSummary pages jobs with ids", JSON.stringify(summary).slice(0, 200));
await call("getJobDetails", { jobId });
await call("getPositionStats", { metric: "candidatesPerPosition" });
await call("getCandidatePipelineStats", { metric: "funnel" });
await call("getInterviewGuideDetails", {}, { "io.recruitd/jobId": jobId });
await call("getInterviewStats", { metric: "byMediumType", companyWide: true });
await call("getInterviewTimeOfDayBreakdown", { timezone: "America/Chicago", sinceDate: "2020-01-01" });
const found = await call("searchCandidates", { query: "software engineer", limit: 3 });
const candidate = found.candidates?.[0];
check(candidate != null, "searchCandidates finds a candidate", JSON.stringify(found).slice(0, 200));
const candidateName = candidate ? (candidate.name ?? `${candidate.firstName} ${candidate.lastName}`) : "a";
await call("getCandidateReport", { name: candidateName.split(" ").reverse().join(" ") });
await call("getCheatingDetectionStats", { metric: "byJob", sortByJobMetric: "rate" });
await call("getFraudVerificationStats", { metric: "riskBreakdown" });
await call("getIdentityVerificationStats", { metric: "statusBreakdown" });
await call("getCandidateVerification", { name: candidateName });
await call("getCompanyFeatures");
await call("getAtsConnection");
await call("listTemplates", { topN: 3 });
await call("searchDocumentation", { query: "how do I connect an MCP client" });

// 4. Scope: a foreign companyId is a tool error pointing at listCompanies.
const foreign = await client.callTool({ name: "getCompanyFeatures", arguments: { companyId: "00000000-0000-4000-8000-000000000000" } });
check(foreign.isError === true && /not in your accessible companies/.test(foreign.content?.[0]?.text ?? ""), "a foreign companyId is refused", JSON.stringify(foreign.content));

await client.close();
console.log(failures === 0 ? "PASS" : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
