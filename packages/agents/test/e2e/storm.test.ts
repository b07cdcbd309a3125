// Issue 23: the crash storm on provider_a and provider_b. 63 resources of every kind the two
// providers manage (provider_a; provider_b Managed; provider_b Forward with identities, fixed and
// pairing channels), `agents apply` (the real CLI) killed with SIGKILL at seeded random moments
// under simulator latency, 5xx, 429, cut connections and dropped responses, then a finishing
// apply without faults; `destroy` killed twice, then finished. Goal: no duplicate on the
// simulators, a clean plan after the finishing apply, nothing left after destroy. The seed is in
// every failure message; STORM_SEED=<n> replays its choices (where a kill lands still depends on
// timing). The state is the file backend only: crash.test.ts already covers each kill window on
// both backends (file and PostgreSQL), and the storm on PostgreSQL would double the time.
import { spawn } from "node:child_process";
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Prng, type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forceUnlock } from "../../src/state/file-store.js";
import { inProcessProject } from "../convergence/in-process.js";
import { CLI } from "./cli.js";
import { namedObjects, setFaults, simState, startProviderAInstantUploads } from "./project.js";

/** Copies of each provider's group of resources (7 + 7 + 7 resources a copy, 63 in all). */
const COPIES = 3;
const APPLY_KILLS = 4;
const DESTROY_KILLS = 2;

function config(): string {
  const out: string[] = [
    'version: "1"',
    "providers:",
    "  provider_a:",
    "    api_key: ${A_API_KEY}",
    "    workspace_id: llm-storm",
    "    base_url: ${A_BASE_URL}",
    "  provider_b:",
    "    api_key: ${B_API_KEY}",
    "    gateway: ${B_GATEWAY}",
    "defaults:",
    "  identity: desk-0",
  ];
  const section = (name: string, body: (i: number) => string[]) => {
    out.push(`${name}:`);
    for (let i = 0; i < COPIES; i++) out.push(...body(i).map((l) => `  ${l}`));
  };
  section("identities", (i) => [`desk-${i}:`, "  provider: provider_b", `  external_id: storm-desk-${i}`]);
  section("environments", (i) => [
    `env-a-${i}:`,
    "  provider: provider_a",
    "  config: { type: cloud }",
    `env-b-${i}:`,
    "  provider: provider_b",
    "  config: { type: cloud }",
    `env-f-${i}:`,
    "  provider: provider_b",
    "  config: { type: cloud }",
  ]);
  section("vaults", (i) => [
    `keys-a-${i}:`,
    "  provider: provider_a",
    "  credentials:",
    '    - { name: one, type: environment_variable, secret_name: ONE, secret_value: "${SECRET_ONE}" }',
    `keys-b-${i}:`,
    "  provider: provider_b",
    "  credentials:",
    `    - { name: forge, type: static_bearer, mcp_server_url: "https://forge${i}.example/mcp", access_token: "\${SECRET_TWO}" }`,
    `keys-f-${i}:`,
    "  provider: provider_b",
    "  credentials:",
    '    - { name: one, type: environment_variable, secret_name: ONE, secret_value: "${SECRET_ONE}" }',
  ]);
  section("memory_stores", (i) => [
    `notes-b-${i}:`,
    "  provider: provider_b",
    "  entries:",
    "    - { key: style.md, content: Be brief. }",
    `notes-f-${i}:`,
    "  provider: provider_b",
    "  entries:",
    "    - { key: refunds.md, content: Refunds within 30 days. }",
  ]);
  section("skills", (i) => [
    `charts-a-${i}:`,
    "  provider: provider_a",
    `  source: skills/charts-a-${i}`,
    `charts-b-${i}:`,
    "  provider: provider_b",
    `  source: skills/charts-b-${i}`,
  ]);
  section("files", (i) => [`glossary-a-${i}:`, "  provider: provider_a", `  source: files/glossary-${i}.md`]);
  section("agents", (i) => [
    `analyst-a-${i}:`,
    "  provider: provider_a",
    "  model: qwen-max",
    "  instructions: Analyse the numbers you are given.",
    `  skills: [charts-a-${i}]`,
    `  vault: keys-a-${i}`,
    `lead-a-${i}:`,
    "  provider: provider_a",
    "  model: qwen-max",
    "  instructions: Split the work between the analysts.",
    `  multiagent: { type: coordinator, agents: [analyst-a-${i}] }`,
    `writer-b-${i}:`,
    "  provider: provider_b",
    "  model: auto",
    "  instructions: Write clearly.",
    `  environment: env-b-${i}`,
    `  vault: keys-b-${i}`,
    `  skills: [charts-b-${i}]`,
    `  memory_stores: [notes-b-${i}]`,
    `lead-b-${i}:`,
    "  provider: provider_b",
    "  model: auto",
    "  instructions: Split the work.",
    `  environment: env-b-${i}`,
    `  multiagent: { type: coordinator, agents: [writer-b-${i}] }`,
    `support-f-${i}:`,
    "  provider: provider_b",
    "  model: auto",
    "  instructions: Answer support questions using the policies.",
    `  environment: env-f-${i}`,
    `  vault: keys-f-${i}`,
    `  memory_stores: [notes-f-${i}]`,
    "  delivery: { provider_b: { type: forward } }",
  ]);
  section("channels", (i) => [
    `desk-${i}:`,
    "  provider: provider_b",
    "  type: dingtalk",
    `  agent: support-f-${i}`,
    `  identity: desk-${i}`,
    `  credentials: { client_id: "\${CLIENT_ID}-${i}", client_secret: "\${CLIENT_SECRET}" }`,
    `broadcast-${i}:`,
    "  provider: provider_b",
    "  type: wechat",
    "  mode: pairing",
  ]);
  section("deployments", (i) => [
    `weekly-a-${i}:`,
    "  provider: provider_a",
    `  agent: analyst-a-${i}`,
    `  environment: env-a-${i}`,
    "  initial_events: [{ type: user.message, content: Weekly numbers please. }]",
    `daily-b-${i}:`,
    "  provider: provider_b",
    `  agent: writer-b-${i}`,
    `  environment: env-b-${i}`,
    "  initial_events: [{ type: user.message, content: Daily summary. }]",
  ]);
  return `${out.join("\n")}\n`;
}

/** Live objects the project made on a simulator, keyed by kind and name (the platform's own left out). */
function liveByName(dump: unknown, sim: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  // Files (provider_a skill packages get unique names), credentials and memories are counted under
  // their owner, so a second copy shows as a duplicate there.
  // Sessions and runs count too: a deployment's must be gone after destroy. Tunnels and their
  // mounts are the simulator's own fixtures, never made by the project.
  for (const o of namedObjects(dump, /^(tunnels|mounts)$/)) {
    const key = `${sim} ${o.kind} ${o.parent} ${o.name}`;
    out.set(key, [...(out.get(key) ?? []), o.id]);
  }
  return out;
}

describe("crash storm on provider_a and provider_b", () => {
  let a: RunningSim;
  let b: RunningSim;
  let dir: string;
  const env: Record<string, string> = { AGENTS_STATE_KEY: "storm-key" };
  const seed = Number(process.env.STORM_SEED || Math.floor(Math.random() * 2 ** 31));
  // the simulators' seeded PRNG (mulberry32): the same seed replays the same storm
  const rng = new Prng(seed);
  const random = () => rng.next();
  const say = (what: string) => `seed ${seed} (STORM_SEED=${seed} replays it): ${what}`;

  beforeAll(async () => {
    [a, b] = await Promise.all([startProviderAInstantUploads(), startSim("provider_b", { quiet: true })]);
    dir = mkdtempSync(join(tmpdir(), "agents-storm-"));
    await fs.writeFile(join(dir, "agents.yaml"), config());
    await fs.mkdir(join(dir, "files"));
    for (let i = 0; i < COPIES; i++) {
      await fs.writeFile(join(dir, "files", `glossary-${i}.md`), `# Glossary ${i}\n`);
      for (const p of ["a", "b"]) {
        const name = `charts-${p}-${i}`;
        await fs.mkdir(join(dir, "skills", name), { recursive: true });
        await fs.writeFile(
          join(dir, "skills", name, "SKILL.md"),
          `---\nname: ${name}\ndescription: Draws charts\n---\nDraw the CSV.\n`,
        );
      }
    }
    const values = {
      A_API_KEY: "sim-provider-a-key",
      B_API_KEY: "sim-provider-b-key",
      A_BASE_URL: a.url,
      B_GATEWAY: b.url,
      SECRET_ONE: "storm-secret-one",
      SECRET_TWO: "storm-secret-two",
      CLIENT_ID: "storm-client",
      CLIENT_SECRET: "storm-client-secret",
    };
    await fs.writeFile(
      join(dir, ".env"),
      `${Object.entries(values)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n")}\n`,
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** Latency, 5xx, 429, cut connections, and a few dropped answers to POSTs, all from the seed. */
  async function storm(): Promise<void> {
    for (const sim of [a, b]) {
      const drops = [1, 2, 3].map(() => ({
        method: "POST",
        nth: 1 + Math.floor(random() * 40),
        action: { type: "drop_response" },
      }));
      await setFaults(sim, {
        seed: Math.floor(random() * 1e9),
        latencyMs: 2,
        jitterMs: 6,
        errorRate: 0.04,
        rateLimitRate: 0.04,
        retryAfterSeconds: 0,
        resetRate: 0.02,
        rules: drops,
      });
    }
  }

  /**
   * Requests both simulators have logged so far, read in process: polling their logs over HTTP
   * every 10 ms made the test's own process (which also serves the simulators) serialize and parse
   * every entry, slowing the CLI it was timing.
   */
  const served = (): number => a.log.last + b.log.last;

  /** Runs the CLI and SIGKILLs it once the simulators served `after` more requests (or it ends). */
  async function killAfter(args: string[], after: number): Promise<void> {
    const until = served() + after;
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1", ...env },
      stdio: "ignore",
    });
    let ended = false;
    const exited = new Promise<void>((resolve) =>
      child.on("close", () => {
        ended = true;
        resolve();
      }),
    );
    for (let i = 0; i < 1000 && !ended; i++) {
      if (served() >= until) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill("SIGKILL");
    await exited;
    // A killed run leaves its file lock: released the way its own message says.
    const statePath = join(dir, "agents.state.json");
    const lock = await fs.readFile(`${statePath}.lock`, "utf8").catch(() => undefined);
    if (lock) await forceUnlock(statePath, (JSON.parse(lock) as { id: string }).id);
  }

  /** The journal and the state's recorded ids and pending creates, as the kills left them. */
  async function journal(): Promise<string> {
    const statePath = join(dir, "agents.state.json");
    const read = (path: string) => fs.readFile(path, "utf8").catch(() => "");
    const state = JSON.parse((await read(statePath)) || "{}") as {
      resources?: Record<string, { id: string }>;
      pending?: unknown;
    };
    const ids = Object.fromEntries(Object.entries(state.resources ?? {}).map(([k, r]) => [k, r.id]));
    return `state: ${JSON.stringify({ ids, pending: state.pending })}\njournal:\n${await read(`${statePath}.journal`)}`;
  }

  async function live(): Promise<Map<string, string[]>> {
    const [da, db] = await Promise.all([simState(a), simState(b)]);
    return new Map([...liveByName(da, "provider_a"), ...liveByName(db, "provider_b")]);
  }

  it("ends with no duplicate, a clean plan, and nothing left after destroy", async () => {
    const agents = inProcessProject(dir, env);
    for (let k = 0; k < APPLY_KILLS; k++) {
      await storm();
      await killAfter(["apply", "-y"], 5 + Math.floor(random() * 120));
    }
    await Promise.all([a, b].map((sim) => setFaults(sim, {})));
    // What the kills left (the journal and the state's pending creates), shown if duplicates remain.
    const leftByKills = await journal();
    const finish = await agents.apply();
    expect(finish.code, say(`finishing apply\n${finish.text}\n${finish.error}`)).toBe(0);

    const duplicates = [...(await live())].filter(([, ids]) => ids.length > 1);
    expect(
      duplicates,
      say(
        `duplicates: ${JSON.stringify(duplicates)}\nfinishing apply:\n${finish.text}\n${finish.error}\n` +
          `left by the kills:\n${leftByKills}`,
      ),
    ).toEqual([]);
    const plan = await agents.plan();
    expect(plan.code, say(`plan after the finishing apply\n${plan.text}\n${plan.error}`)).toBe(0);

    for (let k = 0; k < DESTROY_KILLS; k++) {
      await storm();
      await killAfter(["destroy", "-y"], 3 + Math.floor(random() * 50));
    }
    await Promise.all([a, b].map((sim) => setFaults(sim, {})));
    const destroyed = await agents.destroy();
    expect(destroyed.code, say(`finishing destroy\n${destroyed.text}\n${destroyed.error}`)).toBe(0);
    const left = [...(await live()).keys()];
    expect(left, say(`left after destroy: ${JSON.stringify(left)}`)).toEqual([]);
  }, 120_000);
});
