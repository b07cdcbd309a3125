#!/usr/bin/env node
// The kill -9 storm of issue 38, too big for the test suite: 97 resources of every kind over the
// four providers' simulators (loopback, in this process), the real CLI (dist/agents.mjs) killed
// with SIGKILL at seeded random moments through three phases: apply, a forced replacement (the
// config's round 2: vault credentials, file contents, a deployment's agent, an identity's
// external id, a provider_c skill's name, new skill packages, deployment sources and Forward
// agents' inherited files) and
// destroy, while the simulators add latency, 5xx, 429, cut connections and lost answers. After
// the kills of a phase a run without faults finishes it. On the file state and on PostgreSQL (a
// throwaway server with fsync on), where the database itself is killed with SIGKILL once mid-
// destroy and started again. After each finishing run, read from the simulators' own state: no
// object twice, none the state does not name (orphans), a clean plan; after destroy nothing
// left and the state empty. provider_d skills have no delete and no list on the wire: what they
// leave is counted apart (documented in docs/engine.md, Crash safety). The deterministic kill
// points per provider and phase are test/convergence/kill-matrix.e2e.test.ts.
// Usage: npm run build && node --import tsx bench/storm.mjs [--seed N] [--runs N]
//          [--kills N] [--backends file,postgres] [--max-minutes M]
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Prng, startSim } from "@agents/sims";
import { startPostgres } from "../packages/agents/test/state/pg-server.ts";
import { cli, spawnCli } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    seed: { type: "string" },
    runs: { type: "string", default: "1" },
    kills: { type: "string", default: "4" },
    backends: { type: "string", default: "file,postgres" },
    "max-minutes": { type: "string", default: "20" },
  },
});
const KILLS = Number(values.kills);
const deadline = Date.now() + Number(values["max-minutes"]) * 60_000;
const results = fileURLToPath(new URL("./results/storm.md", import.meta.url));
const PROVIDERS = ["provider_a", "provider_b", "provider_c", "provider_d"];
const KEYS = {
  provider_a: "sim-provider-a-key",
  provider_b: "sim-provider-b-key",
  provider_c: "sim-provider-c-key",
  provider_d: "sim-provider-d-key",
};

// ---- the project: 3 copies of every provider's kinds (31), and 4 more: 97 resources ----

const COPIES = 3;
const skillMd = (name, round) =>
  `---\nname: ${name}\ndescription: Draws charts\n---\nDraw it, round ${round}.\n`;

function project(round) {
  const files = {};
  const y = ['version: "1"', "providers:"];
  for (const p of PROVIDERS) {
    y.push(`  ${p}:`, `    api_key: \${${p.toUpperCase()}_KEY}`);
    if (p === "provider_a") y.push("    workspace_id: llm-storm");
    y.push(
      p === "provider_b"
        ? `    gateway: \${${p.toUpperCase()}_URL}`
        : `    base_url: \${${p.toUpperCase()}_URL}`,
    );
  }
  y.push("defaults:", "  identity: desk-0");
  const kinds = {
    identities: [],
    tunnels: [],
    environments: [],
    vaults: [],
    memory_stores: [],
    skills: [],
    files: [],
    agents: [],
    deployments: [],
    channels: [],
  };
  const cred = () =>
    `{ name: one, type: environment_variable, secret_name: ONE_${round}, secret_value: "\${SECRET}" }`;
  for (let i = 0; i < COPIES; i++) {
    // provider_a: 7 resources a copy
    kinds.environments.push(`env-a-${i}: { provider: provider_a, config: { type: cloud } }`);
    kinds.vaults.push(`keys-a-${i}: { provider: provider_a, credentials: [${cred()}] }`);
    kinds.skills.push(`charts-a-${i}: { provider: provider_a, source: skills/charts-a-${i} }`);
    kinds.files.push(`glossary-a-${i}: { provider: provider_a, source: files/glossary-a-${i}.md }`);
    kinds.agents.push(
      `analyst-a-${i}: { provider: provider_a, model: qwen-max, instructions: Analyse., skills: [charts-a-${i}], vault: keys-a-${i}, files: [{ file: glossary-a-${i}, mount_path: ref/glossary.md }] }`,
      `lead-a-${i}: { provider: provider_a, model: qwen-max, instructions: Split., multiagent: { type: coordinator, agents: [analyst-a-${i}] } }`,
    );
    kinds.deployments.push(
      `weekly-a-${i}: { provider: provider_a, agent: ${round === 1 ? `analyst-a-${i}` : `lead-a-${i}`}, environment: env-a-${i}, initial_events: [{ type: user.message, content: Go. }] }`,
    );
    // provider_b: 11 resources a copy (Managed and Forward)
    kinds.identities.push(`desk-${i}: { provider: provider_b, external_id: storm-desk-${i}-r${round} }`);
    kinds.environments.push(
      `env-b-${i}: { provider: provider_b, config: { type: cloud } }`,
      `env-f-${i}: { provider: provider_b, config: { type: cloud } }`,
    );
    kinds.vaults.push(`keys-b-${i}: { provider: provider_b, credentials: [${cred()}] }`);
    kinds.memory_stores.push(
      `notes-b-${i}: { provider: provider_b, entries: [{ key: style.md, content: Be brief. }] }`,
    );
    kinds.skills.push(`charts-b-${i}: { provider: provider_b, source: skills/charts-b-${i} }`);
    kinds.agents.push(
      `writer-b-${i}: { provider: provider_b, model: auto, instructions: Write., environment: env-b-${i}, vault: keys-b-${i}, skills: [charts-b-${i}], memory_stores: [notes-b-${i}] }`,
      `support-f-${i}: { provider: provider_b, model: auto, instructions: Answer., environment: env-f-${i}, files: [docs/policy-${i}.md], delivery: { provider_b: { type: forward } } }`,
    );
    kinds.deployments.push(
      `daily-b-${i}: { provider: provider_b, agent: writer-b-${i}, environment: env-b-${i}, initial_events: [{ type: user.message, content: Go. }] }`,
    );
    kinds.channels.push(
      `desk-${i}: { provider: provider_b, type: dingtalk, agent: support-f-${i}, identity: desk-${i}, credentials: { client_id: storm-client-${i}, client_secret: "\${SECRET}" } }`,
      `lobby-${i}: { provider: provider_b, type: wechat, mode: pairing }`,
    );
    // provider_c: 6 resources a copy
    kinds.environments.push(`env-c-${i}: { provider: provider_c, config: { type: cloud } }`);
    kinds.vaults.push(
      `keys-c-${i}: { provider: provider_c, credentials: [{ name: issues, type: static_bearer, mcp_server_url: "https://issues${i}.example/mcp", access_token: "\${SECRET}" }] }`,
    );
    kinds.memory_stores.push(
      `notes-c-${i}: { provider: provider_c, entries: [{ key: /facts/sky.md, content: Blue. }] }`,
    );
    kinds.skills.push(`charts-c-${i}: { provider: provider_c, source: skills/charts-c-${i} }`);
    kinds.agents.push(
      `writer-c-${i}: { provider: provider_c, model: claude-sonnet-4-5, instructions: Write., skills: [charts-c-${i}], vault: keys-c-${i}, memory_stores: [notes-c-${i}] }`,
    );
    kinds.deployments.push(
      `nightly-c-${i}: { provider: provider_c, agent: writer-c-${i}, environment: env-c-${i}, resources: [{ type: file, source: files/source-c-${i}.md, mount_path: /workspace/source.md }], initial_events: [{ type: user.message, content: Go. }] }`,
    );
    // provider_d: 7 resources a copy
    kinds.environments.push(`env-d-${i}: { provider: provider_d, config: { type: cloud } }`);
    kinds.vaults.push(`keys-d-${i}: { provider: provider_d, credentials: [${cred()}] }`);
    kinds.memory_stores.push(
      `notes-d-${i}: { provider: provider_d, entries: [{ key: /facts/sky.md, content: Blue. }] }`,
    );
    kinds.skills.push(`charts-d-${i}: { provider: provider_d, source: skills/charts-d-${i} }`);
    kinds.files.push(`glossary-d-${i}: { provider: provider_d, source: files/glossary-d-${i}.md }`);
    kinds.agents.push(
      `writer-d-${i}: { provider: provider_d, model: doubao-seed-1-6, instructions: Write., environment: env-d-${i}, skills: [charts-d-${i}], vault: keys-d-${i}, memory_stores: [notes-d-${i}], files: [{ file: glossary-d-${i}, mount_path: ref/glossary.md }] }`,
    );
    kinds.deployments.push(
      `nightly-d-${i}: { provider: provider_d, agent: writer-d-${i}, environment: env-d-${i}, initial_events: [{ type: user.message, content: Go. }] }`,
    );
    for (const p of ["a", "b", "c"]) {
      const name = `charts-${p}-${i}`;
      // provider_c's skill name (from SKILL.md) changes in round 2: a replacement.
      files[`skills/${name}/SKILL.md`] = skillMd(p === "c" && round === 2 ? `${name}-v2` : name, round);
    }
    // provider_d skills stay as they are: a lost create of one cannot be found (no list).
    files[`skills/charts-d-${i}/SKILL.md`] = skillMd(`charts-d-${i}`, 1);
    files[`files/glossary-a-${i}.md`] = `# Glossary ${i}, round ${round}\n`;
    files[`files/glossary-d-${i}.md`] = `# Glossary ${i}, round ${round}\n`;
    files[`files/source-c-${i}.md`] = `# Source ${i}, round ${round}\n`;
    files[`docs/policy-${i}.md`] = `# Policy ${i}, round ${round}\n`;
  }
  // provider_d: a file no agent mounts.
  kinds.files.push("handbook-d: { provider: provider_d, source: files/handbook-d.md }");
  files["files/handbook-d.md"] = `# Handbook, round ${round}\n`;
  // provider_b extras: an existing tunnel and the self-hosted environment and agent that use it.
  kinds.tunnels.push("office: { tunnel_id: tnl_matrix0001 }");
  kinds.environments.push("byoc: { provider: provider_b, config: { type: self_hosted } }");
  kinds.agents.push(
    "inside: { provider: provider_b, model: auto, instructions: Work inside., environment: byoc, tunnel: office }",
  );
  let count = 0;
  for (const [kind, entries] of Object.entries(kinds)) {
    if (entries.length === 0) continue;
    y.push(`${kind}:`, ...entries.map((e) => `  ${e}`));
    count += entries.length;
  }
  files["agents.yaml"] = `${y.join("\n")}\n`;
  return { files, count };
}

// ---- the simulators' view ----

const HISTORY = /(versions|sessions|events|runs|tunnels|mounts)$/;

async function live(sims) {
  const out = [];
  for (const p of PROVIDERS) {
    const dump = await (await fetch(`${sims[p].origin}/_sim/state`)).json();
    for (const [kind, value] of Object.entries(dump)) {
      if (!Array.isArray(value) || HISTORY.test(kind)) continue;
      for (const o of value) {
        if (typeof o?.id !== "string" || o.archived_at || o.deleted_at) continue;
        if (o.status === "archived" || o.status === "deleted") continue;
        if (o.source === "official" || o.source === "qoder") continue;
        const m = o.metadata ?? {};
        const name = String(
          m["agents.resource"] ?? o.name ?? o.display_name ?? o.filename ?? o.external_id ?? o.key ?? o.path,
        );
        out.push({
          provider: p,
          kind,
          id: o.id,
          name,
          parent: String(o.vault_id ?? o.memory_store_id ?? o.store_id ?? ""),
          // provider_d skills: no delete and no list on the wire (docs/engine.md, Crash safety)
          documented: p === "provider_d" && kind === "skills",
        });
      }
    }
  }
  return out;
}

const CHILDREN = new Set(["credentials", "memories"]);

/** Objects twice (by provider, kind, parent and name) and objects the state does not name. */
function audit(objects, stateText) {
  const groups = new Map();
  for (const o of objects) {
    const key = `${o.provider} ${o.kind} ${o.parent} ${o.name}`;
    groups.set(key, [...(groups.get(key) ?? []), o]);
  }
  const twice = [...groups.values()].filter((g) => g.length > 1).flatMap((g) => g.slice(1));
  const orphans = objects.filter(
    (o) => !stateText.includes(o.id) && !(CHILDREN.has(o.kind) && stateText.includes(o.parent)),
  );
  const split = (list) => ({
    count: list.filter((o) => !o.documented).length,
    documented: list.filter((o) => o.documented).length,
    sample: list
      .filter((o) => !o.documented)
      .slice(0, 5)
      .map((o) => `${o.provider} ${o.kind} ${o.name} ${o.id}`),
  });
  return { duplicates: split(twice), orphans: split(orphans) };
}

// ---- one storm ----

async function storm({ seed, backend, sims, server }) {
  // the simulators' seeded PRNG (mulberry32): the same seed replays the same choices (where a
  // kill lands still follows timing)
  const rng = new Prng(seed);
  const random = () => rng.next();
  const dir = mkdtempSync(join(os.tmpdir(), `agents-storm-${backend}-`));
  const database = `storm_${seed}_${backend}`.replace(/[^a-z0-9_]/g, "_");
  const env = {
    AGENTS_STATE_KEY: "storm-key",
    ...(backend === "postgres" ? { AGENTS_STATE_URL: server.urlFor(database) } : {}),
  };
  if (backend === "postgres") {
    const { default: pg } = await import("pg");
    const admin = new pg.Client({ connectionString: server.urlFor("postgres") });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
  }
  const write = (round) => {
    const { files, count } = project(round);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return count;
  };
  const resources = write(1);
  const dotenv = { SECRET: "storm-secret-5521" };
  for (const p of PROVIDERS) {
    dotenv[`${p.toUpperCase()}_KEY`] = KEYS[p];
    dotenv[`${p.toUpperCase()}_URL`] = sims[p].url;
  }
  writeFileSync(
    join(dir, ".env"),
    `${Object.entries(dotenv)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n")}\n`,
  );
  const run = (args) => spawnCli(dir, process.execPath, [cli, ...args], env);
  const served = async () => {
    let n = 0;
    for (const p of PROVIDERS) n += (await (await fetch(`${sims[p].origin}/_sim/log`)).json()).entries.length;
    return n;
  };
  const setFaults = (config) =>
    Promise.all(
      PROVIDERS.map((p) =>
        fetch(`${sims[p].origin}/_sim/faults`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(config),
        }),
      ),
    );
  const faults = () =>
    Promise.all(
      PROVIDERS.map((p) =>
        fetch(`${sims[p].origin}/_sim/faults`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            seed: Math.floor(random() * 1e9),
            latencyMs: 2,
            jitterMs: 6,
            errorRate: 0.03,
            rateLimitRate: 0.03,
            retryAfterSeconds: 0,
            resetRate: 0.02,
            rules: [1, 2].map(() => ({
              method: "POST",
              nth: 1 + Math.floor(random() * 30),
              action: { type: "drop_response" },
            })),
          }),
        }),
      ),
    );
  /** The CLI, SIGKILLed once the simulators served `after` more requests (or left to end). */
  const killAfter = async (args, after, onReached = async (child) => child.kill("SIGKILL")) => {
    await Promise.all(PROVIDERS.map((p) => fetch(`${sims[p].origin}/_sim/log`, { method: "DELETE" })));
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    let ended = false;
    const exited = new Promise((resolve) =>
      child.on("close", (code, signal) => {
        ended = true;
        resolve({ code, signal });
      }),
    );
    let reached = false;
    for (let i = 0; i < 6000 && !ended; i++) {
      if ((await served()) >= after) {
        reached = true;
        await onReached(child);
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    if (!reached && !ended) child.kill("SIGKILL");
    const outcome = await exited;
    const lock = (() => {
      try {
        return JSON.parse(readFileSync(join(dir, "agents.state.json.lock"), "utf8")).id;
      } catch {
        return undefined;
      }
    })();
    // A killed run leaves its file lock: released as its message says (on PostgreSQL the lock
    // ends with the killed run's connection).
    if (lock) await run(["force-unlock", lock]);
    return { ...outcome, reached, stderr };
  };
  const stateText = async () => {
    const pulled = await run(["state", "pull"]);
    if (pulled.status !== 0) throw new Error(`state pull: ${pulled.stderr}`);
    return pulled.stdout;
  };
  const valid = await run(["validate"]);
  if (valid.status !== 0) throw new Error(`the storm's project does not validate:\n${valid.stderr}`);
  const phases = [];
  let dbKilled;
  const phase = async (name, command, round) => {
    const started = performance.now();
    if (round) write(round);
    const kills = [];
    for (let k = 0; k < KILLS; k++) {
      await faults();
      const after = 3 + Math.floor(random() * (command === "destroy" ? 60 : 150));
      if (backend === "postgres" && command === "destroy" && k === 1) {
        // The database itself killed (kill -9) mid-destroy and started again; the CLI is left to
        // find out on its own.
        const outcome = await killAfter([command, "-y"], after, async () => {
          const t = performance.now();
          await server.crash();
          dbKilled = { after, seconds: (performance.now() - t) / 1000 };
        });
        dbKilled.cli = `exit ${outcome.code}: ${outcome.stderr.trim().split("\n")[0] ?? ""}`;
        console.log(`  the CLI's stderr when the database was killed:\n${outcome.stderr}`);
        kills.push({ after, db: true });
        continue;
      }
      const outcome = await killAfter([command, "-y"], after);
      kills.push({ after, killed: outcome.signal === "SIGKILL", exit: outcome.code });
    }
    await setFaults({});
    const finish = await run([command, "-y"]);
    const result = { name, kills, finish: finish.status, stderr: finish.stderr.slice(0, 400) };
    if (command === "apply") {
      const plan = await run(["plan", "--detailed-exitcode"]);
      result.plan = plan.status;
      Object.assign(result, audit(await live(sims), await stateText()));
    } else {
      const left = await live(sims);
      const state = JSON.parse(await stateText());
      result.left = {
        count: left.filter((o) => !o.documented).length,
        documented: left.filter((o) => o.documented).length,
        sample: left
          .filter((o) => !o.documented)
          .slice(0, 5)
          .map((o) => `${o.provider} ${o.kind} ${o.name}`),
      };
      result.stateEmpty =
        Object.keys(state.resources ?? {}).length === 0 && !Object.keys(state.pending ?? {}).length;
    }
    result.seconds = (performance.now() - started) / 1000;
    phases.push(result);
    console.log(`  ${backend} seed ${seed} ${name}: ${JSON.stringify(result)}`);
  };
  try {
    await phase("apply", "apply");
    await phase("replace", "apply", 2);
    await phase("destroy", "destroy");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { seed, backend, resources, phases, dbKilled };
}

// ---- main ----

const startedAll = performance.now();
const backends = values.backends.split(",");
const sims = {};
for (const p of PROVIDERS) sims[p] = await startSim(p, { quiet: true });
const server = backends.includes("postgres") ? await startPostgres({ durable: true }) : undefined;
const firstSeed = Number(values.seed ?? Math.floor(Math.random() * 2 ** 31));
const storms = [];
try {
  for (let r = 0; r < Number(values.runs) && Date.now() < deadline; r++) {
    for (const backend of backends) {
      if (Date.now() >= deadline) break;
      for (const p of PROVIDERS) await fetch(`${sims[p].origin}/_sim/reset`, { method: "POST" });
      await fetch(`${sims.provider_a.origin}/_sim/seed`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          settings: { file_audit_polls: 0, file_audit_ms: 0, skill_scan_polls: 0, skill_scan_ms: 0 },
        }),
      });
      storms.push(await storm({ seed: firstSeed + r, backend, sims, server }));
    }
  }
} finally {
  await server?.stop();
  await Promise.all(PROVIDERS.map((p) => sims[p].close()));
}

// ---- report ----

const lines = [];
const date = new Date().toISOString();
const cpu = os.cpus();
lines.push(
  `\n## ${date}`,
  "",
  `Machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} at the end (other work shared the machine).`,
  `Command: node --import tsx bench/storm.mjs --seed ${firstSeed} --runs ${values.runs} --kills ${KILLS} --backends ${values.backends}; ` +
    `${((performance.now() - startedAll) / 1000).toFixed(0)} s in all.`,
  "",
  "| seed | state | resources | phase | runs killed | finishing run | plan | duplicates | orphans | left after destroy | state empty | s |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|",
);
const fmt = (x) =>
  x ? `${x.count}${x.documented ? ` (+${x.documented} provider_d skills, documented)` : ""}` : "";
for (const s of storms)
  for (const p of s.phases)
    lines.push(
      `| ${s.seed} | ${s.backend} | ${s.resources} | ${p.name} | ${p.kills.map((k) => (k.db ? `db@${k.after}` : k.killed ? `${k.after}` : `(${k.after}: ended ${k.exit})`)).join(", ")} | exit ${p.finish} | ${p.plan ?? ""} | ${fmt(p.duplicates)} | ${fmt(p.orphans)} | ${fmt(p.left)} | ${p.stateEmpty ?? ""} | ${p.seconds.toFixed(0)} |`,
    );
for (const s of storms)
  if (s.dbKilled)
    lines.push(
      "",
      `PostgreSQL killed (SIGKILL) during destroy, seed ${s.seed}, after ${s.dbKilled.after} requests; back in ${s.dbKilled.seconds.toFixed(1)} s; the CLI ended with ${s.dbKilled.cli}.`,
    );
const samples = storms.flatMap((s) =>
  s.phases.flatMap((p) => [
    ...(p.duplicates?.sample ?? []),
    ...(p.orphans?.sample ?? []),
    ...(p.left?.sample ?? []),
  ]),
);
if (samples.length) lines.push("", "Objects found:", ...samples.map((x) => `- ${x}`));
const text = lines.join("\n");
console.log(text);
appendFileSync(results, `${text}\n`);
