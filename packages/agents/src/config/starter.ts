import { isProviderName, PROVIDER_SPECS } from "../providers/specs.js";

export const DEFAULT_STARTER_PROVIDER = "provider_c";

export function isStarterProvider(name: string): boolean {
  return isProviderName(name);
}

/** Agent names become YAML keys; keep them plain so the starter needs no quoting. */
export function isPlainName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_.-]{0,62}$/.test(name);
}

/** The starter agents.yaml and .env.example written by `agents init`; it validates clean. */
export function starterFiles(provider: string, agent: string): { yaml: string; envExample: string } {
  if (!isProviderName(provider)) throw new Error(`no starter for provider ${provider}`);
  const { starter, capabilities } = PROVIDER_SPECS[provider];
  const tools = capabilities.agents.builtinTools.filter((tool) =>
    ["bash", "read", "write", "edit", "glob", "grep"].includes(tool),
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
