#!/usr/bin/env node
// Forge simulator throughput beyond the shared simple-GET figure: the calls forge-mcp makes most
// (token validation, project/issue/MR reads) and the full OAuth code flow as one unit.
// Usage: npm run build && node bench/sims-forge.mjs [--seconds N]
// Appends the figures to bench/results/sims-forge.md with the date and the machine.
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { parseArgs } from "node:util";
import { createSim, startSim } from "@agents/sims";
import autocannon from "autocannon";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "3" } } });
const duration = Number(values.seconds);
const sim = await startSim("forge", { quiet: true });
const pat = { "private-token": "sim-forge-pat" };

/** One authorization code flow (authorize → token), as forge-mcp's passthrough drives it. */
async function oauthFlow() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const url = new URL("/oauth/authorize", sim.origin);
  for (const [k, v] of Object.entries({
    client_id: "sim-forge-app",
    redirect_uri: "http://127.0.0.1:8080/callback",
    response_type: "code",
    scope: "api",
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
  }))
    url.searchParams.set(k, v);
  const auth = await fetch(url, { redirect: "manual" });
  const code = new URL(auth.headers.get("location")).searchParams.get("code");
  const res = await fetch(`${sim.origin}/oauth/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: "sim-forge-app",
      code,
      redirect_uri: "http://127.0.0.1:8080/callback",
      code_verifier: verifier,
    }),
  });
  return (await res.json()).access_token;
}

const token = await oauthFlow();
const targets = [
  { label: "GET /user (PAT)", url: `${sim.url}/user`, headers: pat },
  {
    label: "GET /oauth/token/info",
    url: `${sim.origin}/oauth/token/info`,
    headers: { authorization: `Bearer ${token}` },
  },
  { label: "GET /projects", url: `${sim.url}/projects`, headers: pat },
  { label: "GET /projects/:id/issues", url: `${sim.url}/projects/acme%2Fwidgets/issues`, headers: pat },
  {
    label: "GET /projects/:id/merge_requests/1/changes",
    url: `${sim.url}/projects/1/merge_requests/1/changes`,
    headers: pat,
  },
];

// Baselines in the same run, so figures from a loaded machine can still be compared: a bare
// node:http server and a simulator with the shared harness but a single trivial route.
const bare = http.createServer((_req, res) => {
  res.setHeader("content-type", "application/json");
  res.end("{}");
});
await new Promise((resolve) => bare.listen(0, "127.0.0.1", resolve));
const tiny = await createSim(
  {
    name: "tiny",
    basePath: "/v1",
    createState: () => ({}),
    errorBody: (_status, message) => ({ message }),
    routes(app) {
      app.get("/v1/ping", (_req, res) => {
        res.json({ ok: true });
      });
    },
    dump: () => ({}),
  },
  { quiet: true },
);
targets.unshift(
  { label: "baseline: bare node:http", url: `http://127.0.0.1:${bare.address().port}/`, headers: {} },
  { label: "baseline: harness, one trivial route", url: `${tiny.url}/ping`, headers: {} },
);

const rows = [];
for (const t of targets) {
  const probe = await fetch(t.url, { headers: t.headers });
  const r = await autocannon({ url: t.url, headers: t.headers, connections: 16, duration });
  rows.push({
    label: t.label,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    probe: probe.status,
  });
  console.log(
    `${t.label.padEnd(44)} ${String(rows.at(-1).rps).padStart(6)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  (probe ${probe.status})`,
  );
}

// The OAuth flow is two requests with state changes; measure it sequentially.
const flows = 300;
const started = performance.now();
for (let i = 0; i < flows; i++) await oauthFlow();
const flowMs = (performance.now() - started) / flows;
console.log(
  `OAuth code flow (authorize + token), sequential: ${flowMs.toFixed(2)} ms per flow (${flows} flows)`,
);
await sim.close();
await tiny.close();
bare.close();

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
const header = `\n## ${new Date().toISOString().slice(0, 10)} — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} at the end, ${duration}s per endpoint, 16 connections\n\n| endpoint | req/s | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|\n`;
const body = rows.map((r) => `| ${r.label} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`).join("\n");
appendFileSync(
  new URL("./results/sims-forge.md", import.meta.url),
  `${header}${body}\n\nOAuth code flow (authorize + token), sequential: ${flowMs.toFixed(2)} ms per flow over ${flows} flows.\n`,
);
