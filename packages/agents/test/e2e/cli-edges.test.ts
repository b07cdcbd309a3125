// The CLI's edges of issue 38: output into a pipe the reader closes (state list, validate, session
// events) and a second Ctrl-C, spawned as a user runs them (a pipe and a signal are the subject);
// the provider_c simulator's other cases below run the CLI's commands in this process
// (./cli-here.ts: the same program, output and exit codes, without a Node start per step).
import { spawn } from "node:child_process";
import { cpSync, promises as fs, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_ADAPTERS, createSession, loadProject } from "../../src/index.js";
import { openStateFile } from "../../src/state/file-store.js";
import { copyExample } from "../convergence/examples.js";
import { inProcessProject } from "../convergence/in-process.js";
import { writeSimProject } from "../convergence/sim-project.js";
import { CLI } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { SECRETS, simulatorForFile } from "./project.js";

const env = { AGENTS_STATE_KEY: "edges-key", C_KEY: "sk-edges-secret-1234" };
// Enough output to outgrow a pipe's buffer (64 KiB on Linux) several times over, so the reader
// is gone while the CLI still writes: 3,000 state entries (about 105 KB from `state list`),
// 3,000 session events (about 90 KB), 600 findings (about 210 KB from `validate`, more with
// --json; 3,000 took the CLI four times as long to find, for no more proof).
const ENTRIES = 3000;
const FINDINGS = 600;
let dir: string;
const c = simulatorForFile("provider_c");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-edges-"));
  const agents = Array.from(
    { length: FINDINGS },
    (_, i) => `  a${i}:\n    model: m\n    instructions: x\n    bogus: 1`,
  );
  await fs.writeFile(
    join(dir, "agents.yaml"),
    ['version: "1"', "providers:", "  provider_c:", "    api_key: ${C_KEY}", "agents:", ...agents, ""].join(
      "\n",
    ),
  );
  const store = await openStateFile(join(dir, "agents.state.json"), "seed");
  await store.update((records) => {
    for (let i = 0; i < ENTRIES; i++) {
      const address = `provider_c.environments["e${i}"]`;
      records[address] = {
        address,
        kind: "environments",
        name: `e${i}`,
        provider: "provider_c",
        id: `env_${i}`,
        external: false,
        spec: {},
        dependsOn: [],
        updatedAt: new Date().toISOString(),
      };
    }
  });
  await store.release();
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** A provider_c agent applied on the simulator, with a session holding 3,000 agent messages. */
async function sessionProject(): Promise<{ dir: string; id: string }> {
  const body = [
    "environments:",
    "  sandbox:",
    "    config:",
    "      type: cloud",
    "agents:",
    "  writer:",
    "    model: claude-sonnet-4-5",
    "    instructions: Write clearly.",
    "    environment: sandbox",
    "",
  ].join("\n");
  const project = await writeSimProject("provider_c", c, body, { dirs: [], prefix: "agents-edges-session-" });
  const applied = await inProcessProject(project, env).apply();
  expect(applied.code, applied.text + applied.error).toBe(0);
  const loaded = await loadProject({ file: join(project, "agents.yaml"), env: { ...process.env, ...env } });
  const session = await createSession({ project: loaded, adapters: ALL_ADAPTERS }, "writer");
  const at = new Date().toISOString();
  const seeded = await fetch(`${c.origin}/_sim/seed`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      session_events: Array.from({ length: ENTRIES }, (_, i) => ({
        session_id: session.id,
        id: `sevt_edges${i}`,
        type: "agent.message",
        content: [{ type: "text", text: `Line ${i} of a long answer.` }],
        created_at: at,
        processed_at: at,
      })),
    }),
  });
  expect(seeded.status).toBe(200);
  return { dir: project, id: session.id };
}

describe("a reader that closes the pipe (`| head`): the CLI stops quietly, as git does", () => {
  let session: { dir: string; id: string };
  beforeAll(async () => {
    session = await sessionProject();
  });
  afterAll(() => fs.rm(session.dir, { recursive: true, force: true }));

  it.each([
    ["agents state list | head -1", () => "state list", ""],
    ["agents validate | head -1", () => "validate", ""],
    ["agents validate 2>err | head -1", () => "validate", "2>err"],
    ["agents validate --json | head -1", () => "validate --json", ""],
    ["agents session events SESSION | head -1", () => `session events ${session.id}`, "", () => session.dir],
  ])("%s", async (_title, args, redirect, where: () => string = () => dir) => {
    // bash reports each side of the pipe: the CLI's exit code and what it said on stderr. Spawned
    // without blocking: the simulator the session row reads runs in this process.
    const script = `node ${JSON.stringify(CLI)} ${args()} ${redirect || "2>stderr.txt"} | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const child = spawn("bash", ["-c", script], {
      cwd: where(),
      env: { ...process.env, ...env, AGENTS_DEBUG: "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let status = "";
    child.stdout.on("data", (chunk) => {
      status += chunk;
    });
    await new Promise((resolve) => child.on("close", resolve));
    const stderr = await fs.readFile(join(where(), redirect ? "err" : "stderr.txt"), "utf8");
    expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(stderr).toBe("");
    // 128 + SIGPIPE, what the shell shows for `git log | head -1` (docs/cli.md)
    expect(status.trim()).toBe("141");
  });
});

describe("against the provider_c simulator", () => {
  async function freshProject(): Promise<string> {
    const project = mkdtempSync(join(tmpdir(), "agents-edges-sim-"));
    cpSync(fileURLToPath(new URL("./fixtures/crash-c", import.meta.url)), project, { recursive: true });
    await fs.writeFile(
      join(project, ".env"),
      `C_API_KEY=${SECRETS.C_API_KEY}\nGITHUB_TOKEN=${SECRETS.GITHUB_TOKEN}\nC_BASE_URL=${c.url}\n`,
    );
    return project;
  }

  it("examples/provider-c applies with the external agent made as its .env.example says, its id shown", async () => {
    // The command the .env.example documents, run as written (its URL pointed at this simulator).
    const example = fileURLToPath(new URL("../../../../examples/provider-c/.env.example", import.meta.url));
    const documented = readFileSync(example, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("#   "))
      .map((line) => line.slice(4).replace(/\\$/, ""))
      .join(" ");
    expect(documented).toMatch(/^curl /);
    const headers = Object.fromEntries(
      [...documented.matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1]!, m[2]!] as [string, string]),
    );
    const body = /-d '([^']*)'/.exec(documented)![1]!;
    const path = new URL(/http:\/\/\S+/.exec(documented)![0]).pathname;
    const made = await fetch(`${c.url}${path}`, { method: "POST", headers, body });
    expect(made.status, await made.clone().text()).toBeLessThan(300);
    const id = ((await made.json()) as { id: string }).id;

    const { dir: project } = await copyExample("provider-c", new Map([["provider_c", c]]));
    try {
      const envFile = join(project, ".env");
      const text = await fs.readFile(envFile, "utf8");
      await fs.writeFile(
        envFile,
        text.replace(/^EXTERNAL_REVIEWER_AGENT_ID=.*$/m, `EXTERNAL_REVIEWER_AGENT_ID=${id}`),
      );
      const exampleEnv = { AGENTS_STATE_KEY: "edges-example", AGENTS_BASE_URL_PROVIDER_C: c.url };
      const apply = await runCliHere(["apply", "-y"], { cwd: project, env: exampleEnv });
      expect(apply.stderr).toBe("");
      expect({ code: apply.code, out: apply.code === 0 ? "" : apply.stdout }).toEqual({ code: 0, out: "" });
      // the id is not a secret: the plan shows it, and never as [redacted]
      expect(apply.stdout).toContain(id);
      const state = await fs.readFile(join(project, "agents.state.json"), "utf8");
      expect(state).toContain(id);
      await runCliHere(["destroy", "-y"], { cwd: project, env: exampleEnv });
    } finally {
      await fs.rm(project, { recursive: true, force: true });
    }
  }, 120_000);

  it("a key renamed without state mv: the plan names the state mv that keeps the object", async () => {
    const project = await freshProject();
    try {
      const first = await runCliHere(["apply", "-y"], { cwd: project, env });
      expect(first.code, first.stderr).toBe(0);
      const file = join(project, "agents.yaml");
      const text = await fs.readFile(file, "utf8");
      await fs.writeFile(file, text.replace("  notes:", "  journal:").replace("[notes]", "[journal]"));
      const plan = await runCliHere(["plan"], { cwd: project, env });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain(
        `agents state mv 'provider_c.memory_stores["notes"]' 'provider_c.memory_stores["journal"]'`,
      );
      // only the renamed pair gets the hint
      expect(plan.stdout.match(/agents state mv/g)).toHaveLength(1);
    } finally {
      await fs.rm(project, { recursive: true, force: true });
    }
  }, 60_000);

  it("a second Ctrl-C during apply quits at once, naming the lock it leaves and the command that releases it", async () => {
    const project = await freshProject();
    const cliEnv = { ...process.env, ...env, AGENTS_DEBUG: "", NO_COLOR: "1" };
    // The first create is parked in the simulator: the apply is certainly mid-step, lock held.
    await fetch(`${c.origin}/_sim/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rules: [{ method: "POST", nth: 1, action: { type: "hold" } }] }),
    });
    try {
      const child = spawn(process.execPath, [CLI, "apply", "-y"], { cwd: project, env: cliEnv });
      let out = "";
      let err = "";
      child.stderr.on("data", (chunk) => {
        err += chunk;
      });
      child.stdout.on("data", (chunk) => {
        out += chunk;
        if (out.includes("creating...") && !out.includes("Interrupted")) child.kill("SIGINT");
        if (out.includes("Interrupted: finishing")) child.kill("SIGINT");
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(code).toBe(130);
      const lock = JSON.parse(await fs.readFile(join(project, "agents.state.json.lock"), "utf8"));
      expect(err).toContain(`the state lock (id ${lock.id}) is left held`);
      expect(err).toContain(`release it with: agents force-unlock ${lock.id}`);
      expect(err).not.toMatch(/\n\s+at /);
      // The command it names is the real one, and releases that lock.
      const unlock = await runCliHere(["force-unlock", lock.id], { cwd: project, env });
      expect(unlock.stderr).toBe("");
      expect(unlock.code).toBe(0);
      await expect(fs.stat(join(project, "agents.state.json.lock"))).rejects.toThrow();
    } finally {
      await fetch(`${c.origin}/_sim/release`, { method: "POST" });
      await fs.rm(project, { recursive: true, force: true });
    }
  }, 60_000);
});
