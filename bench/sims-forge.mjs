#!/usr/bin/env node
// Forge simulator throughput beyond the shared simple-GET figure: the calls forge-mcp makes most
// (token validation, project/issue/MR reads) and the full OAuth code flow as one unit.
//
// The servers run in a child process and report their own CPU time, so besides req/s (which a
// loaded, shared machine distorts) the bench records server CPU per request, and the req/s one
// core could serve at that cost. Two baselines run alongside: a bare node:http server and a
// simulator with the shared harness and a single trivial route.
//
// Usage: npm run build && node bench/sims-forge.mjs [--seconds N]
// Appends the figures to bench/results/sims-forge.md with the date and the machine.
import { fork } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createSim, startSim } from "@agents/sims";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "3" }, serve: { type: "boolean", default: false } },
});

if (values.serve) {
  // Child: start the servers, hand their URLs to the parent, answer CPU-time questions.
  const forge = await startSim("forge", { quiet: true });
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
  process.on("message", async (msg) => {
    if (msg === "cpu") process.send({ cpu: process.cpuUsage() });
    if (msg === "stop") {
      await forge.close();
      await tiny.close();
      bare.close();
      process.disconnect();
    }
  });
  process.send({
    forge: { url: forge.url, origin: forge.origin },
    bare: `http://127.0.0.1:${bare.address().port}/`,
    tiny: `${tiny.url}/ping`,
  });
} else {
  await main();
}

async function main() {
  const duration = Number(values.seconds);
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = () => new Promise((resolve) => child.once("message", resolve));
  const urls = await next();
  const cpu = async () => {
    child.send("cpu");
    const { cpu: c } = await next();
    return c.user + c.system;
  };
  const { url: api, origin } = urls.forge;
  const pat = { "private-token": "sim-forge-pat" };

  /** One authorization code flow (authorize → token), as forge-mcp's passthrough drives it. */
  async function oauthFlow() {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const url = new URL("/oauth/authorize", origin);
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
    const res = await fetch(`${origin}/oauth/token`, {
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
    { label: "baseline: bare node:http", url: urls.bare, headers: {} },
    { label: "baseline: harness, one trivial route", url: urls.tiny, headers: {} },
    { label: "GET /user (PAT)", url: `${api}/user`, headers: pat },
    {
      label: "GET /oauth/token/info",
      url: `${origin}/oauth/token/info`,
      headers: { authorization: `Bearer ${token}` },
    },
    { label: "GET /projects", url: `${api}/projects`, headers: pat },
    { label: "GET /projects/:id/issues", url: `${api}/projects/acme%2Fwidgets/issues`, headers: pat },
    {
      label: "GET /projects/:id/merge_requests/1/changes",
      url: `${api}/projects/1/merge_requests/1/changes`,
      headers: pat,
    },
  ];

  const rows = [];
  for (const t of targets) {
    const probe = await fetch(t.url, { headers: t.headers });
    const before = await cpu();
    const r = await autocannon({ url: t.url, headers: t.headers, connections: 16, duration });
    const usPerReq = (await cpu()) - before;
    const served = r.requests.total;
    const row = {
      label: t.label,
      rps: Math.round(r.requests.average),
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.errors + r.non2xx,
      cpuUs: Math.round(usPerReq / served),
      perCore: Math.round((1e6 * served) / usPerReq),
    };
    rows.push(row);
    console.log(
      `${t.label.padEnd(44)} ${String(row.rps).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  server ${row.cpuUs} µs CPU/req (≈ ${row.perCore} req/s per core)  (probe ${probe.status})`,
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
  child.send("stop");
  await new Promise((resolve) => child.once("exit", resolve));

  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  const header = `\n## ${new Date().toISOString().slice(0, 10)} — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} at the end, ${duration}s per endpoint, 16 connections\n\n| endpoint | req/s | p50 ms | p99 ms | non-2xx | server CPU µs/req | ≈ req/s per core |\n|---|---|---|---|---|---|---|\n`;
  const body = rows
    .map((r) => `| ${r.label} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.cpuUs} | ${r.perCore} |`)
    .join("\n");
  appendFileSync(
    new URL("./results/sims-forge.md", import.meta.url),
    `${header}${body}\n\nOAuth code flow (authorize + token), sequential: ${flowMs.toFixed(2)} ms per flow over ${flows} flows.\n`,
  );
}
