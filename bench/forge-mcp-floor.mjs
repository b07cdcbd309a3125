#!/usr/bin/env node
// The floor under forge-mcp's 20 ms rows: the least a Node process in forge-mcp's place can add.
// It answers the bench's two tools/call requests (whoami, create_issue_note) the way forge-mcp
// does on the wire (one JSON-RPC result, the forge's answer as compact JSON text), with node:http
// and the same undici client, and nothing else: no Express, no MCP SDK, no validation, no auth.
// Not a server to use: a yardstick. Run it in forge-mcp's place:
//   node bench/forge-mcp.mjs --only load --mcp-main bench/forge-mcp-floor.mjs
// Reads what the bench gives forge-mcp: FORGE_API_URL, FORGE_TOKEN, PORT; and FLOOR_BURN_US, a
// calibration: microseconds of busy CPU added to each call (before its forge request), to see
// how a row's share of direct falls with the CPU a process in forge-mcp's place spends per call:
//   node bench/forge-mcp.mjs --only load --floor --mcp-main bench/forge-mcp-floor.mjs \
//     --mcp-env FLOOR_BURN_US=100
import { createServer } from "node:http";
import { request } from "undici";

const api = process.env.FORGE_API_URL;
const headers = { accept: "application/json", authorization: `Bearer ${process.env.FORGE_TOKEN}` };
const forge = {
  whoami: () => ({ url: `${api}/user`, method: "GET" }),
  create_issue_note: (a) => ({
    url: `${api}/projects/${encodeURIComponent(a.project_id)}/issues/${a.issue_iid}/notes`,
    method: "POST",
    body: JSON.stringify({ body: a.body }),
  }),
};

const burnMs = Number(process.env.FLOOR_BURN_US ?? 0) / 1000;
/** Busy CPU for FLOOR_BURN_US microseconds (none by default). */
function burn() {
  if (burnMs <= 0) return;
  const until = performance.now() + burnMs;
  while (performance.now() < until);
}

const server = createServer(async (req, res) => {
  if (req.method === "GET") return void res.end('{"ok":true}');
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const call = JSON.parse(Buffer.concat(chunks).toString());
  const { url, method, body } = forge[call.params.name](call.params.arguments);
  burn();
  const r = await request(url, {
    method,
    headers: body ? { ...headers, "content-type": "application/json" } : headers,
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = JSON.stringify(await r.body.json());
  const answer = JSON.stringify({
    jsonrpc: "2.0",
    id: call.id,
    // a 2026-07-28 request (its _meta names the revision) gets the revision's resultType
    result: { content: [{ type: "text", text }], ...(call.params._meta && { resultType: "complete" }) },
  });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
  res.end(answer);
});
server.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGINT", () => server.close());
