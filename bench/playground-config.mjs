// A large project for the playground (bench/playground.mjs and the browser test's scale rows):
// `count` resources on provider_c, a fifth environments, a fifth memory stores and the rest
// agents, each agent using one environment and one memory store, so the graph has an edge for
// every reference a real team's file would have. `providers` is the file's providers block.
export function playgroundConfig(providers, count) {
  const fifth = Math.max(1, Math.floor(count / 5));
  const lines = ['version: "1"', providers.trimEnd(), "environments:"];
  for (let i = 0; i < fifth; i++) lines.push(`  env-${i}:`, "    config:", "      type: cloud");
  lines.push("memory_stores:");
  for (let i = 0; i < fifth; i++) lines.push(`  notes-${i}:`, `    description: Notes ${i}`);
  lines.push("agents:");
  for (let i = 0; i < count - 2 * fifth; i++)
    lines.push(
      `  agent-${i}:`,
      "    model: claude-sonnet-4-5",
      `    instructions: Agent ${i}.`,
      `    environment: env-${i % fifth}`,
      `    memory_stores: [notes-${i % fifth}]`,
    );
  return `${lines.join("\n")}\n`;
}
