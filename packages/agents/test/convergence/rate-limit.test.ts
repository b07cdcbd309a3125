// An apply through a provider's request limit, through the CLI's steps in-process (in-process.ts)
// on provider_c's simulator with a token bucket per key (docs/sims.md "Request limits"): the run
// paces itself from the limit headers, sends a refused create again (the provider did not act), and
// finishes with nothing failed and few 429s. The 20 creates wait behind the limit together on the
// run's one request signal, and Node says nothing about it (no MaxListenersExceededWarning).
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requestLog, setFaults, simState, simulatorForFile } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";

const AGENTS = 20;
const KEY = "sim-provider-c-key";

const sim = simulatorForFile("provider_c");
let dir: string;
// Node's warnings of this process (the CLI prints them on stderr as they come).
const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

beforeAll(async () => {
  process.on("warning", onWarning);
  dir = mkdtempSync(join(tmpdir(), "agents-rate-"));
  const lines = [
    'version: "1"',
    "providers:",
    "  provider_c:",
    "    api_key: ${C_API_KEY}",
    `    base_url: ${sim.url}`,
    "agents:",
  ];
  for (let i = 0; i < AGENTS; i++)
    lines.push(
      `  a${i}:`,
      "    provider: provider_c",
      "    model: claude-sonnet-4-5",
      `    instructions: Agent ${i}.`,
    );
  await fs.writeFile(join(dir, "agents.yaml"), `${lines.join("\n")}\n`);
});
afterAll(async () => {
  process.off("warning", onWarning);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

it(`applies ${AGENTS} agents through a limit of 40 requests/s (bucket of 2) with nothing failed`, async () => {
  // Slower than the engine goes unpaced even on a busy machine, and a bucket of 2 against the
  // engine's 10 requests in parallel, so the limit bites at the first requests already (at 10/s,
  // as before, the run took 3 s of pacing for the same proof).
  await setFaults(sim, { rateLimit: { limit: 40, periodSeconds: 1, burst: 2 } });
  const agents = inProcessProject(dir, { AGENTS_STATE_KEY: "rate-key", C_API_KEY: KEY });
  const apply = await agents.apply();
  expect(apply.error).toBe("");
  expect(apply.code).toBe(0);

  const state = (await simState(sim)) as { agents: unknown[] };
  expect(state.agents).toHaveLength(AGENTS);
  const calls = await requestLog(sim);
  const refused = calls.filter((c) => c.status === 429);
  const creates = calls.filter((c) => c.method === "POST" && c.path === "/v1/agents" && c.status === 200);
  expect(creates).toHaveLength(AGENTS);
  // Only what was sent before the first answer showed the limit may be refused (parallelism 10).
  expect(refused.length).toBeLessThanOrEqual(10);
  // Each pause is said once, in the CLI's words.
  const pauses = apply.text.split("\n").filter((l) => l.includes("rate limited"));
  for (const line of pauses) expect(line).toMatch(/^provider_c: rate limited, resuming in \d+ s$/);
  expect(pauses.length).toBeLessThanOrEqual(refused.length);

  // The next plan sees no changes, paced the same way.
  const plan = await agents.plan();
  expect(plan.code).toBe(0);
  // Warnings are emitted on the next tick: let any of the run's arrive before looking.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
});
