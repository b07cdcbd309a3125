// The projects shipped under examples/, made runnable against the simulators: a copy of the
// folder with a .env built from its .env.example. convergence/examples.test.ts runs every one
// in-process; e2e/examples.test.ts runs one through the spawned CLI.
import { cpSync, promises as fs, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { liveObjects, simState, startProviderAInstantUploads } from "../e2e/project.js";

export const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));
export const PROVIDERS = ["provider_a", "provider_b", "provider_c", "provider_d"] as const;

/** Every example folder, found on disk, so a new example is covered the day it lands. */
export const examples = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** The value a `.env.example` placeholder gets against the simulators. */
const VALUES: Record<string, string> = {
  PROVIDER_A_API_KEY: "sim-provider-a-key",
  PROVIDER_A_WORKSPACE_ID: "llm-examples",
  PROVIDER_B_API_KEY: "sim-provider-b-key",
  PROVIDER_C_API_KEY: "sim-provider-c-key",
  PROVIDER_D_API_KEY: "sim-provider-d-key",
  FORGE_MCP_URL: "https://forge-mcp.example.test/mcp",
};

/** Objects an example references but does not manage: they exist before it, as for a user. */
const EXTERNALS: Record<string, (sims: Map<string, RunningSim>) => Promise<string>> = {
  async EXTERNAL_REVIEWER_AGENT_ID(sims) {
    const response = await fetch(`${sims.get("provider_c")!.url}/agents`, {
      method: "POST",
      headers: {
        "x-api-key": "sim-provider-c-key",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "managed-agents-2026-04-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "external-reviewer", model: "claude-sonnet-4-5" }),
    });
    if (!response.ok) throw new Error(`creating the external agent failed: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  },
};

/**
 * One simulator per provider. provider_a's content audit and skill scan settle at the first
 * poll: an example's apply would otherwise sleep through the client's first poll intervals (1 s
 * for a file, 2 s for a skill), a wait that is the provider's, not the example's; the waits
 * themselves are tested in test/providers/provider-a/definition.sim.test.ts.
 */
export async function startSims(): Promise<Map<string, RunningSim>> {
  const sims = new Map<string, RunningSim>();
  for (const name of PROVIDERS)
    sims.set(
      name,
      name === "provider_a" ? await startProviderAInstantUploads() : await startSim(name, { quiet: true }),
    );
  return sims;
}

/** The variables the example runs with besides its .env. */
export function exampleEnv(name: string, sims: Map<string, RunningSim>): Record<string, string> {
  return {
    AGENTS_STATE_KEY: `examples-${name}`,
    ...Object.fromEntries(PROVIDERS.map((p) => [`AGENTS_BASE_URL_${p.toUpperCase()}`, sims.get(p)!.url])),
  };
}

/**
 * A copy of the example with its .env filled in; `secrets` are the values the .env carries
 * that none may reach the state file or the output. The caller removes `dir`.
 */
export async function copyExample(
  name: string,
  sims: Map<string, RunningSim>,
): Promise<{ dir: string; secrets: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), `agents-example-${name}-`));
  cpSync(join(EXAMPLES, name), dir, { recursive: true });
  const lines: string[] = [];
  const secrets: string[] = [];
  for (const line of readFileSync(join(dir, ".env.example"), "utf8").split("\n")) {
    if (!/^[A-Z0-9_]+=/.test(line)) continue;
    const key = line.slice(0, line.indexOf("="));
    let value = VALUES[key];
    if (value === undefined && EXTERNALS[key]) value = await EXTERNALS[key](sims);
    if (value === undefined) {
      value = `${key.toLowerCase().replaceAll("_", "-")}-examples-secret`;
      secrets.push(value);
    }
    lines.push(`${key}=${value}`);
  }
  await fs.writeFile(join(dir, ".env"), `${lines.join("\n")}\n`);
  return { dir, secrets };
}

/** What of the project in `dir` each simulator still holds live. */
export async function liveOf(
  sims: Map<string, RunningSim>,
  dir: string,
): Promise<Array<{ provider: string; left: ReturnType<typeof liveObjects> }>> {
  const out = [];
  for (const [provider, sim] of sims) {
    const left = liveObjects(await simState(sim)).filter(
      (o) => o.metadata?.["agents.project"] === basename(dir),
    );
    out.push({ provider, left });
  }
  return out;
}
