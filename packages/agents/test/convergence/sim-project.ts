// A project a test writes for one simulator, which many convergence files set up alike: a
// temporary folder, an agents.yaml that starts with the simulator's `providers:` block, the files
// it names, and the API key in `.env`.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { RunningSim } from "@agents/sims";

export type SimProvider = "provider_a" | "provider_b" | "provider_c" | "provider_d";

/** The variable each provider's API key is named by in agents.yaml, and the simulator's key. */
const API_KEYS: Record<SimProvider, [variable: string, key: string]> = {
  provider_a: ["A_API_KEY", "sim-provider-a-key"],
  provider_b: ["B_API_KEY", "sim-provider-b-key"],
  provider_c: ["C_API_KEY", "sim-provider-c-key"],
  provider_d: ["D_API_KEY", "sim-provider-d-key"],
};

/** A model each simulator's agents take, for tests that declare one agent per provider. */
export const AGENT_MODELS: Record<SimProvider, string> = {
  provider_a: "qwen-max",
  provider_b: "auto",
  provider_c: "claude-sonnet-4-5",
  provider_d: "gpt-4o",
};

/** The head of an agents.yaml on one simulator: its API key by variable, its URL as written. */
export function providerBlock(provider: SimProvider, sim: RunningSim): string {
  const lines = ['version: "1"', "providers:", `  ${provider}:`, `    api_key: \${${API_KEYS[provider][0]}}`];
  if (provider === "provider_a") lines.push("    workspace_id: llm-e2e");
  lines.push(provider === "provider_b" ? `    gateway: ${sim.url}` : `    base_url: ${sim.url}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Writes a project in a new temporary folder (pushed onto `dirs`, which removes it): agents.yaml
 * is the simulator's provider block followed by `body`, `files` (path → content) are written
 * beside it, and `.env` holds the API key.
 */
export async function writeSimProject(
  provider: SimProvider,
  sim: RunningSim,
  body: string,
  options: { dirs: string[]; prefix: string; files?: Record<string, string> },
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), options.prefix));
  options.dirs.push(dir);
  const [variable, key] = API_KEYS[provider];
  const files = {
    ...options.files,
    "agents.yaml": providerBlock(provider, sim) + body,
    ".env": `${variable}=${key}\n`,
  };
  for (const [path, content] of Object.entries(files)) {
    await fs.mkdir(dirname(join(dir, path)), { recursive: true });
    await fs.writeFile(join(dir, path), content);
  }
  return dir;
}

/**
 * provider_b's Forward agent `concierge` on the cloud environment `desk`, with `extra` lines of the
 * agent (as they stand under it, four spaces in) before its delivery block.
 */
export function forwardConcierge(...extra: string[]): string {
  const agent = ["model: auto", "instructions: Help.", "environment: desk", ...extra];
  return [
    "environments:",
    "  desk:",
    "    config:",
    "      type: cloud",
    "agents:",
    "  concierge:",
    ...agent.map((line) => `    ${line}`),
    "    delivery:",
    "      provider_b:",
    "        type: forward",
    "",
  ].join("\n");
}
