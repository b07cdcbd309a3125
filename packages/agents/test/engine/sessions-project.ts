// One project with a session-capable agent on every provider and flavour, applied in-process
// against the four simulators; the session tests (library matrix and spawned CLI) share it.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentScript, type RunningSim, startSim } from "@agents/sims";
import { apply, type EngineOptions, loadProject } from "../../src/index.js";

export const KEYS = {
  A_API_KEY: "sim-provider-a-key",
  B_API_KEY: "sim-provider-b-key",
  C_API_KEY: "sim-provider-c-key",
  D_API_KEY: "sim-provider-d-key",
  /** A secret the provider_b agent carries as an environment variable: never printed. */
  API_TOKEN: "session-secret-api-token-0042",
  /** A vault credential's value on provider_c (talk-c's vault): never printed either. */
  VAULT_SECRET: "session-secret-vault-value-0077",
};

const tools = (permission: "ask" | "allow") => `
    tools:
      builtin: [bash]
      default_permission: ${permission}`;

/** The four providers, on the simulators sessionWorld starts: the head of every project here. */
export const PROVIDERS = `version: "1"
providers:
  provider_a:
    api_key: \${A_API_KEY}
    workspace_id: llm-sessions
    base_url: \${A_BASE_URL}
  provider_b:
    api_key: \${B_API_KEY}
    gateway: \${B_GATEWAY}
  provider_c:
    api_key: \${C_API_KEY}
    base_url: \${C_BASE_URL}
  provider_d:
    api_key: \${D_API_KEY}
    base_url: \${D_BASE_URL}
`;

export const YAML = `${PROVIDERS}
identities:
  alice:
    provider: provider_b
    external_id: user-1
    name: Alice

environments:
  env-a: { provider: provider_a, config: { type: cloud } }
  env-b: { provider: provider_b, config: { type: cloud } }
  env-bf:
    provider: provider_b
    config: { type: cloud }
  env-c: { provider: provider_c, config: { type: cloud } }
  env-d: { provider: provider_d, config: { type: cloud } }

vaults:
  keys-c:
    provider: provider_c
    credentials:
      - name: search
        type: environment_variable
        secret_name: SEARCH_API_KEY
        secret_value: \${VAULT_SECRET}

agents:
  talk-a:
    provider: provider_a
    model: qwen-max
    instructions: Be brief.
    environment: env-a${tools("allow")}
  talk-b:
    provider: provider_b
    model: auto
    instructions: Be brief.
    environment: env-b
    environment_variables:
      API_TOKEN: \${API_TOKEN}${tools("ask")}
  talk-bf:
    provider: provider_b
    model: auto
    instructions: Be brief.
    environment: env-bf${tools("ask")}
    delivery:
      provider_b:
        type: forward
  talk-c:
    provider: provider_c
    model: claude-sonnet-4-5
    instructions: Be brief.
    environment: env-c
    vault: keys-c${tools("ask")}
  talk-d:
    provider: provider_d
    model: doubao-seed-1-6
    instructions: Be brief.
    environment: env-d${tools("ask")}
`;

export interface SessionWorld {
  sims: Record<"a" | "b" | "c" | "d", RunningSim>;
  dir: string;
  env: NodeJS.ProcessEnv;
  options(): Promise<EngineOptions>;
  close(): Promise<void>;
}

/** Starts the four simulators and writes the project (not applied: `applyAll` does that). */
export async function sessionWorld(yaml = YAML, prefix = "agents-sessions-"): Promise<SessionWorld> {
  const [a, b, c, d] = await Promise.all(
    (["provider_a", "provider_b", "provider_c", "provider_d"] as const).map((n) =>
      startSim(n, { quiet: true }),
    ),
  );
  const sims = { a: a!, b: b!, c: c!, d: d! };
  const dir = mkdtempSync(join(tmpdir(), prefix));
  await fs.writeFile(join(dir, "agents.yaml"), yaml);
  const env: NodeJS.ProcessEnv = {
    ...KEYS,
    A_BASE_URL: sims.a.url,
    B_GATEWAY: sims.b.url,
    C_BASE_URL: sims.c.url,
    D_BASE_URL: sims.d.url,
    AGENTS_STATE_KEY: "sessions-state-key",
  };
  await fs.writeFile(
    join(dir, ".env"),
    `${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n")}\n`,
  );
  return {
    sims,
    dir,
    env,
    async options() {
      const project = await loadProject({ file: join(dir, "agents.yaml"), env });
      return { project, env };
    },
    async close() {
      await Promise.all(Object.values(sims).map((s) => s.close()));
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export async function applyAll(world: SessionWorld): Promise<void> {
  const outcome = await apply({ ...(await world.options()), confirm: async () => true });
  if (!outcome.result?.ok) throw new Error(`apply failed: ${JSON.stringify(outcome.result?.failed)}`);
}

export function setChunkMs(world: SessionWorld, ms: number): void {
  for (const sim of Object.values(world.sims)) agentScript(sim).chunkMs = ms;
}

/**
 * Another project on the same provider_c account: an agent of the same logical name, applied from
 * its own folder, whose sessions this project must refuse to touch.
 */
export const OTHER_PROJECT_YAML = `version: "1"
providers:
  provider_c:
    api_key: \${C_API_KEY}
    base_url: \${C_BASE_URL}
environments:
  env-c: { provider: provider_c, config: { type: cloud } }
agents:
  talk-c:
    provider: provider_c
    model: claude-sonnet-4-5
    instructions: Someone else's.
    environment: env-c
`;
