#!/usr/bin/env node
// The memory 10,000 distinct users' cached tokens take in forge-mcp: one forge-mcp in this process
// (FORGE_MCP_OAUTH, and REMOTE_AUTHORIZATION), the forge simulator in a process of its own with
// 10,000 users and a token each; every user makes one tools/call (whoami), which verifies the token
// at the forge and caches the answer. The heap after a full GC, before and after, divided by the
// users, against the bound docs/forge-mcp.md states ("Token caches").
// Usage: npm run build && node bench/forge-mcp-tokens.mjs [--users N]
// Appends the figures to bench/results/forge-mcp-tokens.md with the date and the machine.
import { appendFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import os from "node:os";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { createLogger, createServer, loadConfig } from "../packages/forge-mcp/dist/index.js";
import { headline, startForgeSim } from "./lib.mjs";

// a full GC on demand without a node flag (npm run bench starts this script without one)
v8.setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const { values } = parseArgs({ options: { users: { type: "string", default: "10000" } } });
const USERS = Number(values.users);
const APP_ID = "bench-app";
// The bound docs/forge-mcp.md states for the verified-token cache of one mode, per cached token.
const BOUND_BYTES_PER_TOKEN = 1536;

const sim = await startForgeSim();
const forgeApi = sim.apiUrl;
const forgeRoot = forgeApi.replace(/\/api\/v4$/, "");
const seed = (body) =>
  fetch(`${forgeRoot}/_sim/seed`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (r) => {
    if (!r.ok) throw new Error(`seed: ${r.status} ${await r.text()}`);
  });
const users = Array.from({ length: USERS }, (_, i) => `user${i}`);
await seed({ users: users.map((username) => ({ username })) });
await seed({
  applications: [
    { uid: APP_ID, confidential: false, redirect_uris: ["http://127.0.0.1:9/cb"], scopes: ["api"] },
  ],
  // an OAuth token of our application and a personal access token per user, each as long as a real one
  tokens: users.map((u, i) => ({
    token: `oauth-${String(i).padStart(58, "0")}`,
    application: APP_ID,
    user: u,
  })),
  personal_access_tokens: users.map((u, i) => ({ token: `glpat-${String(i).padStart(20, "0")}`, user: u })),
});

async function measure(mode, env, tokenOf, headersOf) {
  const http = createHttpServer();
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${http.address().port}`;
  const server = await createServer(
    loadConfig({
      FORGE_API_URL: forgeApi,
      MCP_SERVER_URL: url,
      MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE: "1000000",
      ...env,
    }),
    { logger: createLogger("silent", new Writable({ write: (_c, _e, cb) => cb() })) },
  );
  http.on("request", server.app);
  const call = (i) =>
    fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        ...headersOf(tokenOf(i)),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "whoami", arguments: {} },
      }),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`${mode}: user ${i}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    });
  // warm: the pools, the JIT and one user, so that the difference is the other users' entries
  for (let i = 0; i < 50; i++) await call(0);
  gc();
  gc();
  const before = process.memoryUsage();
  for (let i = 1; i < USERS; i += 16)
    await Promise.all(Array.from({ length: Math.min(16, USERS - i) }, (_, k) => call(i + k)));
  gc();
  gc();
  const after = process.memoryUsage();
  const perToken = (after.heapUsed - before.heapUsed) / (USERS - 1);
  http.closeAllConnections();
  await new Promise((r) => http.close(r));
  await server.close();
  return {
    mode,
    perToken,
    heapMiB: (after.heapUsed - before.heapUsed) / 2 ** 20,
    rssMiB: after.rss / 2 ** 20,
  };
}

const rows = [];
for (const r of [
  await measure(
    "FORGE_MCP_OAUTH (verified at /oauth/token/info)",
    { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID },
    (i) => `oauth-${String(i).padStart(58, "0")}`,
    (t) => ({ authorization: `Bearer ${t}` }),
  ),
  await measure(
    "REMOTE_AUTHORIZATION (verified with GET /user)",
    { REMOTE_AUTHORIZATION: "true" },
    (i) => `glpat-${String(i).padStart(20, "0")}`,
    (t) => ({ "private-token": t }),
  ),
]) {
  const met = r.perToken <= BOUND_BYTES_PER_TOKEN;
  headline(
    "forge-mcp",
    `${USERS.toLocaleString("en")} users' tokens cached, ${r.mode}: heap per token`,
    `${r.perToken.toFixed(0)} B (${r.heapMiB.toFixed(1)} MiB)`,
    `≤ ${BOUND_BYTES_PER_TOKEN} B`,
    met,
  );
  rows.push(
    `| ${r.mode} | ${r.heapMiB.toFixed(1)} MiB | ${r.perToken.toFixed(0)} B | ≤ ${BOUND_BYTES_PER_TOKEN} B: ${met ? "met" : "not met"} | ${r.rssMiB.toFixed(0)} MiB |`,
  );
  console.log(
    `${r.mode}: ${r.heapMiB.toFixed(1)} MiB for ${USERS} users, ${r.perToken.toFixed(0)} B per token`,
  );
}
sim.stop();
appendFileSync(
  "bench/results/forge-mcp-tokens.md",
  `\n## ${new Date().toISOString()}\n\nnproc ${os.availableParallelism()}, node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"}, load average ${os.loadavg()[0].toFixed(1)}; forge-mcp in this process, forge simulator in its own; heap used after a full GC, before and after ${USERS.toLocaleString("en")} distinct users made one tools/call each.\n\n| Mode | Heap grown | Per cached token | Bound | RSS after |\n|---|---|---|---|---|\n${rows.join("\n")}\n`,
);
