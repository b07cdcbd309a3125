// Every CLI command that calls the providers says each pause of the provider's refusal loop once on
// stderr (cli/engine-output.ts, engineOptions), not only the commands that stream: one row per
// command, run in-process (e2e/cli-here.ts) against the simulators (test/engine/sessions-project.ts), once
// as it is and once with the provider refusing its first call (a 429 naming a 2 ms wait). The
// refused run says `<provider>: rate limited, resuming in 1 s` once on stderr, prints the same
// stdout as the run before it (ids and times aside, for the commands that make something new) and
// ends the same way. Then `agents session send` when the provider refuses the stream open itself:
// a 529 naming a wait is said the same way and the reply still comes; a refusal that outlasts
// every sending ends the command with one error that names the provider and what to do, with no
// reconnect behind it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, FileBackend, STATE_FILE_NAME, showState } from "../../../src/index.js";
import { DEFAULT_RETRY_POLICY } from "../../../src/providers/http.js";
import { runCliHere } from "../../e2e/cli-here.js";
import { applyAll, KEYS, PROVIDERS, type SessionWorld, sessionWorld } from "../../engine/sessions-project.js";

const ENV_C = 'provider_c.environments["env-c"]';

/** Agents on provider_b and provider_c, a provider_c memory store and deployment. */
const PROJECT = `${PROVIDERS}
environments:
  env-b: { provider: provider_b, config: { type: cloud } }
  env-c: { provider: provider_c, config: { type: cloud } }
memory_stores:
  notes:
    provider: provider_c
    description: Notes
    entries:
      - key: seed.md
        content: Seeded.
agents:
  talk-b: { provider: provider_b, model: auto, instructions: Be brief., environment: env-b }
  talk-c: { provider: provider_c, model: claude-sonnet-4-5, instructions: Be brief., environment: env-c }
deployments:
  run-c:
    provider: provider_c
    agent: talk-c
    environment: env-c
    initial_events:
      - type: user.message
        content: Summarize what changed today.
`;

let world: SessionWorld;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  world = await sessionWorld(PROJECT, "agents-provider-pauses-");
  ({ dir, env } = world);
  mkdirSync(join(dir, "seeds"));
  writeFileSync(join(dir, "seeds", "seed.md"), "Seeded.");
  writeFileSync(
    join(dir, "agents.test.yaml"),
    'tests:\n  - name: echoes\n    agent: talk-c\n    messages: ["Hello there"]\n    expect:\n      - contains: "Hello there"\n',
  );
  await applyAll(world);
});
afterAll(() => world?.close());

/** A new session of talk-c, for the commands that use one up. */
const newSession = async () => (await createSession(await world.options(), "talk-c")).id;

/** A memory made for `memory rm` to delete. */
async function putMemory(path: string): Promise<string> {
  const put = await runCliHere(["memory", "put", "notes", path, "--from-file", "seeds/seed.md"], {
    cwd: dir,
    env,
  });
  expect(put.code).toBe(0);
  return path;
}

/** env-c let go of by the state, so that `agents import` has something to adopt; its remote id. */
async function releaseEnvironment(): Promise<string> {
  const backend = new FileBackend(join(dir, STATE_FILE_NAME));
  const { id } = await showState(backend, ENV_C);
  const rm = await runCliHere(["state", "rm", ENV_C], { cwd: dir, env });
  expect(rm.code).toBe(0);
  return id;
}

interface Row {
  provider: "b" | "c";
  /** The command's arguments; made afresh for each of the two runs. */
  args: () => Promise<string[]> | string[];
}

const rows: Record<string, Row> = {
  "session start": { provider: "b", args: () => ["session", "start", "talk-b", "--json"] },
  "session create": { provider: "c", args: () => ["session", "create", "talk-c", "--json"] },
  "session list": { provider: "c", args: () => ["session", "list", "--agent", "talk-c"] },
  "session get": { provider: "c", args: async () => ["session", "get", await newSession(), "--json"] },
  "session delete": { provider: "c", args: async () => ["session", "delete", await newSession()] },
  "session events": { provider: "c", args: async () => ["session", "events", await newSession()] },
  "deployment list --remote": { provider: "c", args: () => ["deployment", "list", "--remote"] },
  "deployment get": { provider: "c", args: () => ["deployment", "get", "run-c", "--json"] },
  "deployment pause": { provider: "c", args: () => ["deployment", "pause", "run-c"] },
  "deployment unpause": { provider: "c", args: () => ["deployment", "unpause", "run-c"] },
  "deployment run": { provider: "c", args: () => ["deployment", "run", "run-c"] },
  run: { provider: "c", args: () => ["run", "run-c"] },
  "models list": { provider: "c", args: () => ["models", "list", "--provider", "provider_c"] },
  "memory list": { provider: "c", args: () => ["memory", "list", "notes"] },
  "memory get": { provider: "c", args: () => ["memory", "get", "notes", "seed.md"] },
  "memory history": { provider: "c", args: () => ["memory", "history", "notes", "seed.md"] },
  "memory put": {
    provider: "c",
    args: () => ["memory", "put", "notes", "seed.md", "--from-file", "seeds/seed.md"],
  },
  "memory rm": { provider: "c", args: async () => ["memory", "rm", "notes", await putMemory("gone.md")] },
  "memory import --dry-run": {
    provider: "c",
    args: () => ["memory", "import", "notes", "seeds", "--dry-run"],
  },
  import: { provider: "c", args: async () => ["import", ENV_C, await releaseEnvironment()] },
  "sync --dry-run": { provider: "c", args: () => ["sync", "--dry-run", "--provider", "provider_c"] },
  "plan --json": { provider: "c", args: () => ["plan", "--provider", "provider_c", "--json"] },
  test: { provider: "c", args: () => ["test"] },
  "apply --refresh-only": { provider: "c", args: () => ["apply", "--refresh-only", "-y"] },
};

/** What differs between two runs of a command that makes something: its ids and times. */
const sameShape = (text: string) =>
  text
    .replace(/\b\d{4}-\d\d-\d\dT[\d:.]+Z?\b/g, "TIME")
    .replace(/\b\d+\.\ds\b/g, "SECONDS")
    .replace(/\b[a-z]+_[A-Za-z0-9]{6,}\b/g, "ID")
    .replace(/"(duration|elapsed)[A-Za-z_]*":\s*[\d.]+/g, '"$1":N');

describe("a command that calls the providers says the provider's pause once on stderr", () => {
  it.each(Object.entries(rows))("%s", async (_name, row) => {
    const sim = world.sims[row.provider];
    const provider = row.provider === "b" ? "provider_b" : "provider_c";
    const clean = await runCliHere(await row.args(), { cwd: dir, env });
    const args = await row.args();
    sim.faults.set({
      rules: [
        {
          nth: 1,
          action: { type: "status", status: 429, headers: { "retry-after-ms": "2", "retry-after": "1" } },
        },
      ],
    });
    const from = sim.log.last;
    const refused = await runCliHere(args, { cwd: dir, env }).finally(() => sim.faults.clear());
    // The refusal reached the command: one call was answered 429, and sent again.
    expect(sim.log.since(from).filter((e) => e.status === 429)).toHaveLength(1);
    const notice = `${provider}: rate limited, resuming in 1 s\n`;
    expect(refused.stderr.split(notice)).toHaveLength(2);
    expect(refused.stderr.replace(notice, "")).toBe(clean.stderr);
    expect(sameShape(refused.stdout)).toBe(sameShape(clean.stdout));
    expect(refused.stdout).not.toContain("resuming");
    expect(refused.code).toBe(clean.code);
    expect(refused.code).toBe(0);
    for (const key of Object.values(KEYS)) expect(refused.stderr + refused.stdout).not.toContain(key);
  });
});

describe("agents session send, when the provider refuses the stream open", () => {
  const STREAM = "/events/stream$";
  let session: string;
  beforeAll(async () => {
    session = await newSession();
  });
  /** The stream opens the simulator refused since `from` (its request log). */
  const refusedOpens = (from: number) =>
    world.sims.c.log.since(from).filter((e) => e.path.includes("/events/stream") && e.status === 529);

  it("says the pause on stderr once, then prints the reply", async () => {
    world.sims.c.faults.set({
      rules: [
        {
          method: "GET",
          path: STREAM,
          nth: 1,
          action: { type: "status", status: 529, headers: { "retry-after-ms": "20", "retry-after": "1" } },
        },
      ],
    });
    const from = world.sims.c.log.last;
    const result = await runCliHere(["session", "send", session, "hello"], { cwd: dir, env });
    expect(result.stderr).toBe("provider_c: 529 (overloaded), resuming in 1 s\n");
    expect(result.stdout).toContain("(simulated) received: hello");
    expect(result.code).toBe(0);
    expect(refusedOpens(from)).toHaveLength(1);
  });

  it("ends in one error naming the provider and what to do once the refusals are spent", async () => {
    world.sims.c.faults.set({
      rules: [
        {
          method: "GET",
          path: STREAM,
          repeat: true,
          nth: 1,
          action: { type: "status", status: 529, headers: { "retry-after-ms": "2" } },
        },
      ],
    });
    const from = world.sims.c.log.last;
    const result = await runCliHere(["session", "send", session, "hello"], { cwd: dir, env });
    const attempts = DEFAULT_RETRY_POLICY.maxRefusals + 1;
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^error: provider_c GET /sessions/${session}/events/stream: 529 overloaded_error: .*; provider_c was overloaded and refused all ${attempts} attempts: try again in a few minutes$`,
      ),
    );
    expect(lines.slice(0, -1).every((l) => l === "provider_c: 529 (overloaded), resuming in 1 s")).toBe(true);
    expect(result.stderr).not.toContain(KEYS.C_API_KEY);
    expect(result.code).toBe(1);
    // No reconnect after the last refusal: the stream was opened exactly as often as the client allows.
    expect(refusedOpens(from)).toHaveLength(attempts);
    world.sims.c.faults.clear();
  });
});
