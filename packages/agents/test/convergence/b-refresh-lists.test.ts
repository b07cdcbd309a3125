// Plan from lists on provider_b, through the CLI's steps in-process (in-process.ts): provider_b's
// `after_id` lists (`{data, has_more, last_id}`) show each environment, vault and memory store (both
// API domains), Identity, Channel, Managed Agent, Forward Template and deployment (`page` cursor) exactly as its GET does, so a wide no-change plan
// reads them from list pages instead of one GET each, and still sees drift and a resource removed
// behind its back.
import type { RunningSim } from "@agents/sims";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requestLog } from "../e2e/project.js";
import type { InProcessProject } from "./in-process.js";
import { applyWideProject, bearerWire, type WideProject } from "./wide-project.js";

// More than LIST_REFRESH_MIN of each kind on each domain; the page walk itself is covered by the
// paging tests.
const PER_KIND = 10;
const KEY = "sim-provider-b-key";
const CLOUD = "/api/v1/cloud";
const FORWARD = "/api/v1/forward";

let sim: RunningSim;
let agents: InProcessProject;
let wide: WideProject | undefined;

function config(url: string): string {
  const lines = ['version: "1"', "providers:", "  provider_b:", `    api_key: ${KEY}`, `    gateway: ${url}`];
  const section = (kind: string, prefixes: string[], body: (name: string, i: number) => string[]) => {
    lines.push(`${kind}:`);
    for (const prefix of prefixes)
      for (let i = 0; i < PER_KIND; i++)
        lines.push(`  ${prefix}${i}:`, "    provider: provider_b", ...body(`${prefix}${i}`, i));
  };
  // m*: Managed environments and agents; f*: Forward environments, each used by a Forward agent.
  section("environments", ["m", "f"], () => ["    config:", "      type: cloud"]);
  section("vaults", ["v"], () => [
    "    credentials:",
    "      - name: token",
    "        type: environment_variable",
    "        secret_name: TOKEN",
    "        secret_value: lists-secret-value",
  ]);
  section("memory_stores", ["s"], (_name, i) => [`    description: Store ${i}.`]);
  section("identities", ["u"], (_name, i) => [`    external_id: user-${i}`]);
  section("channels", ["c"], (_name, i) => [
    "    type: feishu",
    "    mode: pairing",
    "    credentials:",
    `      app_id: app-${i}`,
    `      app_secret: secret-${i}`,
  ]);
  section("agents", ["m", "f"], (name, i) => [
    "    model: auto",
    `    instructions: Agent ${i}.`,
    ...(name.startsWith("f")
      ? [`    environment: ${name}`, "    delivery:", "      provider_b:", "        type: forward"]
      : []),
  ]);
  // Deployments of the Managed agents, all in m0 (which the second test leaves alone).
  section("deployments", ["d"], (_name, i) => [
    `    agent: m${i}`,
    "    environment: m0",
    "    initial_events:",
    "      - type: user.message",
    `        content: Run ${i}.`,
  ]);
  return `${lines.join("\n")}\n`;
}

/** A GET of one object of a listed kind (`/agents/agent_…`), not a list or a sub-list. */
const LISTED = "environments|vaults|memory_stores|identities|channels|agents|templates|deployments";
const singleGet = (path: string) => new RegExp(`/(${LISTED})/[^/]+$`).test(path);

const wire = bearerWire(() => sim.origin, KEY);

beforeAll(async () => {
  wide = await applyWideProject("provider_b", config, { AGENTS_STATE_KEY: "b-lists-key" });
  ({ sim, agents } = wide);
});
afterAll(() => wide?.close());

it("a no-change plan lists each kind on each domain instead of reading each resource", async () => {
  const calls = await wide!.noChangePlanCalls(singleGet);
  // Environments: the Managed list holds only half of them, so the Forward list is walked too;
  // vaults and memory stores are all on the Managed list; Identities and Channels are Forward only;
  // agents on `/agents`, Templates on the Forward `/templates`.
  const lists = calls.filter((c) => new RegExp(`/(${LISTED})$`).test(c.path)).map((c) => c.path);
  expect(lists.sort()).toEqual(
    [
      `${CLOUD}/agents`,
      `${CLOUD}/environments`,
      `${CLOUD}/vaults`,
      `${CLOUD}/memory_stores`,
      `${CLOUD}/deployments`,
      `${FORWARD}/identities`,
      `${FORWARD}/channels`,
      `${FORWARD}/environments`,
      `${FORWARD}/templates`,
    ].sort(),
  );
  // Each vault's credentials still come from their own list (the vault list cannot show them).
  expect(calls.filter((c) => /\/vaults\/[^/]+\/credentials$/.test(c.path))).toHaveLength(PER_KIND);
  expect(calls.length).toBe(lists.length + PER_KIND);
});

const AGENT = 'provider_b.agents["m3"]';
const TEMPLATE = 'provider_b.agents["f4"]';
const ENVIRONMENT = 'provider_b.environments["m5"]';

it("still sees a change made behind its back, and a resource removed", async () => {
  const ids = await wide!.stateIds();
  const agent = (await (await wire("GET", `${CLOUD}/agents/${ids[AGENT]}`)).json()) as Record<
    string,
    unknown
  >;
  const edit = await wire("PUT", `${CLOUD}/agents/${ids[AGENT]}`, {
    ...agent,
    system: "Changed.",
  });
  expect(edit.status).toBe(200);
  expect(
    (await wire("POST", `${FORWARD}/templates/${ids[TEMPLATE]}`, { system: "Changed too." })).status,
  ).toBe(200);
  expect((await wire("DELETE", `${CLOUD}/environments/${ids[ENVIRONMENT]}`)).ok).toBe(true);
  await wide!.clearLog();
  const plan = await agents.plan();
  expect(plan.code).toBe(2);
  const changes = plan
    .plan!.actions.filter((a) => a.action !== "noop")
    .map((a) => `${a.action} ${a.address}`);
  expect(changes.sort()).toEqual([`update ${AGENT}`, `update ${TEMPLATE}`, `create ${ENVIRONMENT}`].sort());
  // Only the environment no list shows any more is read on its own (that decides "gone").
  const calls = await requestLog(sim);
  expect(calls.filter((c) => singleGet(c.path)).map((c) => c.path)).toEqual([
    `${CLOUD}/environments/${ids[ENVIRONMENT]}`,
  ]);
});
