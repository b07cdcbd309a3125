// `agents destroy --cascade` through the CLI's own commands, in-process (e2e/cli-here.ts) against the provider_b simulator: an environment
// that end users' sessions still run in cannot be deleted; without --cascade the destroy fails
// naming the sessions and keeps the environment in state, with --cascade the sessions are
// archived first. --cascade does not override default_memory_store.delete_on_destroy (rule 5).
import { cpSync, promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "./cli-here.js";
import { simState, simulatorForFile } from "./project.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/cascade-b", import.meta.url));
const API_KEY = "sim-provider-b-key";
const SANDBOX = 'provider_b.environments["sandbox"]';
type Obj = Record<string, any>;

const b = simulatorForFile("provider_b");
let dir: string;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "cascade-key" }, timeoutMs: 60_000 });
const dump = async () => (await simState(b)) as Record<string, Obj[]>;
const readState = async () => JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));

async function post(path: string, body: unknown): Promise<Obj> {
  const response = await fetch(`${b.origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Obj;
}

let ids: Record<string, string>;
let managedSession: Obj;
let store: Obj;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-cascade-"));
  cpSync(FIXTURE, dir, { recursive: true });
  await fs.writeFile(join(dir, ".env"), `B_API_KEY=${API_KEY}\nB_GATEWAY=${b.url}\n`);
  const apply = await run("apply", "-y");
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const state = await readState();
  ids = Object.fromEntries(Object.entries(state.resources as Record<string, Obj>).map(([a, r]) => [a, r.id]));
  // An end user's managed session in the project's environment, and the first Forward session,
  // which makes the platform create the default memory store.
  managedSession = await post("/api/v1/cloud/sessions", {
    agent: ids['provider_b.agents["researcher"]'],
    environment_id: ids[SANDBOX],
  });
  await post("/api/v1/forward/sessions", {
    identity_id: ids['provider_b.identities["alice"]'],
    template_id: ids['provider_b.agents["concierge"]'],
  });
  store = (await dump()).memory_stores!.find((m) => m.system_managed)!;
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("destroy of an environment sessions still use", () => {
  it("without --cascade: fails naming the session and how to proceed; nothing of the user's is touched", async () => {
    const destroy = await run("destroy", "-y", "--target", SANDBOX);
    expect(destroy.code).toBe(1);
    const output = destroy.stdout + destroy.stderr;
    expect(output).toContain(`still used by 1 session(s) (${managedSession.id})`);
    expect(output).toContain("--cascade");
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
    const d = await dump();
    expect(d.sessions!.find((s) => s.id === managedSession.id)?.archived_at).toBeNull();
    expect(d.environments!.find((e) => e.id === ids[SANDBOX])).toBeDefined();
    // Still tracked, so a later destroy (with --cascade) finds it.
    expect((await readState()).resources[SANDBOX]?.id).toBe(ids[SANDBOX]);
  });

  it("with --cascade: archives the session first, deletes the environment, and keeps the default store", async () => {
    const destroy = await run("destroy", "-y", "--cascade");
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(destroy.stdout).toContain(
      `--cascade: archived 1 session(s) that still used environment ${ids[SANDBOX]}`,
    );
    const d = await dump();
    expect(d.sessions!.find((s) => s.id === managedSession.id)?.archived_at).toEqual(expect.any(String));
    expect(d.environments!.filter((e) => !e.archived_at).map((e) => e.id)).toEqual([]);
    expect(Object.keys((await readState()).resources)).toEqual([]);
    // delete_on_destroy is false: --cascade does not turn it into a delete (rule 5).
    const kept = d.memory_stores!.find((m) => m.id === store.id);
    expect(kept).toBeDefined();
    expect(kept!.archived_at ?? null).toBeNull();
    expect(kept!.deleted_at ?? null).toBeNull();
  });
});
