// The 5,000-resource project of bench/scale.mjs (and bench/scale-plan-ab.mjs): environments and
// agents on each of the four providers, `perKind` of each per provider.
export const PROVIDERS = {
  provider_a: {
    model: "qwen-max",
    block: (url) => [
      "    api_key: sim-provider-a-key",
      "    workspace_id: llm-scale",
      `    base_url: ${url}`,
    ],
  },
  provider_b: { model: "auto", block: (url) => ["    api_key: sim-provider-b-key", `    gateway: ${url}`] },
  provider_c: {
    model: "claude-sonnet-4-5",
    block: (url) => ["    api_key: sim-provider-c-key", `    base_url: ${url}`],
  },
  provider_d: { model: "doubao-seed-1-6", block: () => ["    api_key: sim-provider-d-key"] },
};

/** agents.yaml for the simulators at `urls` (provider name → base URL). */
export function scaleConfig(urls, perKind) {
  const lines = ['version: "1"', "providers:"];
  for (const [name, p] of Object.entries(PROVIDERS)) lines.push(`  ${name}:`, ...p.block(urls[name]));
  lines.push("environments:");
  for (const name of Object.keys(PROVIDERS))
    for (let i = 0; i < perKind; i++)
      lines.push(`  ${name.at(-1)}${i}:`, `    provider: ${name}`, "    config:", "      type: cloud");
  lines.push("agents:");
  for (const [name, p] of Object.entries(PROVIDERS))
    for (let i = 0; i < perKind; i++)
      lines.push(
        `  ${name.at(-1)}${i}:`,
        `    provider: ${name}`,
        `    model: ${p.model}`,
        `    instructions: Agent ${i}.`,
      );
  return `${lines.join("\n")}\n`;
}
