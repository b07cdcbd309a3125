import { PROVIDER_NAMES, PROVIDERS } from "../model/provider-catalog.js";

interface ProviderStarter {
  /** Lines under `providers.<name>:` */
  block: string[];
  /** `.env.example` lines. */
  env: string[];
  model: string;
}

const STARTERS: Record<string, ProviderStarter> = {
  provider_a: {
    block: ["api_key: ${PROVIDER_A_API_KEY}", "workspace_id: ${PROVIDER_A_WORKSPACE_ID}"],
    env: ["PROVIDER_A_API_KEY=replace-me", "PROVIDER_A_WORKSPACE_ID=llm-replace-me"],
    model: "qwen-plus",
  },
  provider_b: {
    block: ["api_key: ${PROVIDER_B_API_KEY}"],
    env: ["PROVIDER_B_API_KEY=replace-me"],
    model: "auto",
  },
  provider_c: {
    block: ["api_key: ${PROVIDER_C_API_KEY}"],
    env: ["PROVIDER_C_API_KEY=replace-me"],
    model: "claude-sonnet-4-5",
  },
  provider_d: {
    block: ["api_key: ${PROVIDER_D_API_KEY}"],
    env: ["PROVIDER_D_API_KEY=replace-me"],
    model: "doubao-seed-1-6",
  },
};

export const DEFAULT_STARTER_PROVIDER = "provider_c";

export function isStarterProvider(name: string): boolean {
  return Object.hasOwn(STARTERS, name) && (PROVIDER_NAMES as string[]).includes(name);
}

/** Agent names become YAML keys; keep them plain so the starter needs no quoting. */
export function isPlainName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_.-]{0,62}$/.test(name);
}

/** The starter agents.yaml and .env.example written by `agents init`; it validates clean. */
export function starterFiles(provider: string, agent: string): { yaml: string; envExample: string } {
  const starter = STARTERS[provider];
  if (!starter) throw new Error(`no starter for provider ${provider}`);
  const tools = PROVIDERS[provider as keyof typeof PROVIDERS].capabilities.agents.builtinTools.filter(
    (tool) => ["bash", "read", "write", "edit", "glob", "grep"].includes(tool),
  );
  const yaml = [
    "# yaml-language-server: $schema=./agents.schema.json",
    "# agents.yaml: declare providers and agents, then run `agents validate` and `agents plan`.",
    "# Secrets are written as ${VAR} and read from the environment or .env (see .env.example).",
    'version: "1"',
    "",
    "providers:",
    `  ${provider}:`,
    ...starter.block.map((line) => `    ${line}`),
    "",
    "environments:",
    "  default:",
    "    config:",
    "      type: cloud",
    "",
    "agents:",
    `  ${agent}:`,
    "    description: A general-purpose assistant",
    `    model: ${starter.model}`,
    "    instructions: |",
    "      You are a careful assistant. Explain what you are about to do before doing it,",
    "      and keep answers short.",
    "    environment: default",
    "    tools:",
    `      builtin: [${tools.join(", ")}]`,
    "",
  ].join("\n");
  const envExample = [
    "# Copy to .env and fill in. .env is git-ignored; never commit real keys.",
    ...starter.env,
    "",
  ].join("\n");
  return { yaml, envExample };
}
