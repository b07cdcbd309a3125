// Plan from lists on provider_a, through the CLI's steps in-process (in-process.ts): provider_a's
// lists (`{data, next_page}`) show each environment, vault, agent and deployment exactly as its GET
// does, so a wide no-change plan reads them from list pages instead of one GET each, and still sees
// drift and a resource removed behind its back.
import type { RunningSim } from "@agents/sims";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requestLog } from "../e2e/project.js";
import type { InProcessProject } from "./in-process.js";
import { applyWideProject, bearerWire, type WideProject } from "./wide-project.js";

// More than LIST_REFRESH_MIN of each kind, and more than one page of 100 would need: 10 suffice
// for the listing; the page walk itself is covered by the paging tests.
const PER_KIND = 10;
const KINDS = ["environments", "vaults", "agents", "deployments"] as const;
const KEY = "sim-provider-a-key";

let sim: RunningSim;
let agents: InProcessProject;
let wide: WideProject | undefined;

function config(url: string): string {
  const lines = [
    'version: "1"',
    "providers:",
    "  provider_a:",
    `    api_key: ${KEY}`,
    "    workspace_id: llm-lists",
    `    base_url: ${url}`,
  ];
  const section = (kind: string, body: (i: number) => string[]) => {
    lines.push(`${kind}:`);
    for (let i = 0; i < PER_KIND; i++) lines.push(`  r${i}:`, "    provider: provider_a", ...body(i));
  };
  section("environments", () => ["    config:", "      type: cloud"]);
  section("vaults", () => [
    "    credentials:",
    "      - name: token",
    "        type: environment_variable",
    "        secret_name: TOKEN",
    "        secret_value: lists-secret-value",
  ]);
  section("agents", (i) => ["    model: qwen-max", `    instructions: Agent ${i}.`]);
  section("deployments", (i) => [
    `    agent: r${i}`,
    `    environment: r${i}`,
    "    initial_events:",
    "      - type: user.message",
    `        content: Run ${i}.`,
  ]);
  return `${lines.join("\n")}\n`;
}

/** A GET of one object of a listed kind (`/agents/agt_…`), not a list or a sub-list. */
const singleGet = (path: string) => /\/(environments|vaults|agents|deployments)\/[^/]+$/.test(path);

const wire = bearerWire(() => sim.url, KEY);

beforeAll(async () => {
  wide = await applyWideProject("provider_a", config, { AGENTS_STATE_KEY: "a-lists-key" });
  ({ sim, agents } = wide);
});
afterAll(() => wide?.close());

it("a no-change plan lists each kind instead of reading each resource", async () => {
  const calls = await wide!.noChangePlanCalls(singleGet);
  for (const kind of KINDS) expect(calls.filter((c) => c.path.endsWith(`/${kind}`)).length).toBe(1);
  // Each vault's credentials still come from their own list (the vault list cannot show them).
  expect(calls.filter((c) => /\/vaults\/[^/]+\/credentials$/.test(c.path))).toHaveLength(PER_KIND);
  expect(calls.length).toBe(KINDS.length + PER_KIND);
});

const AGENT = 'provider_a.agents["r3"]';
const ENVIRONMENT = 'provider_a.environments["r5"]';

it("still sees a change made behind its back, and a resource removed", async () => {
  const ids = await wide!.stateIds();
  const agent = (await (await wire("GET", `/agents/${ids[AGENT]}`)).json()) as { version: number };
  const edit = await wire("POST", `/agents/${ids[AGENT]}`, {
    version: agent.version,
    system: "Changed.",
  });
  expect(edit.status).toBe(200);
  expect((await wire("DELETE", `/environments/${ids[ENVIRONMENT]}`)).ok).toBe(true);
  await wide!.clearLog();
  const plan = await agents.plan();
  expect(plan.code).toBe(2);
  const changes = plan
    .plan!.actions.filter((a) => a.action !== "noop")
    .map((a) => `${a.action} ${a.address}`);
  expect(changes).toContain(`update ${AGENT}`);
  expect(changes).toContain(`create ${ENVIRONMENT}`);
  // Only the environment the list no longer shows is read on its own (that decides "gone").
  const calls = await requestLog(sim);
  expect(calls.filter((c) => singleGet(c.path)).map((c) => c.path)).toEqual([
    `/api/v1/agentstudio/environments/${ids[ENVIRONMENT]}`,
  ]);
});
