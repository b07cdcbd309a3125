// The 500-resource project the apply benchmarks share: five provider_c kinds, `perKind` each:
// deployment i → agent i → (vault i, memory store i), deployment i → environment i.
export function applyConfig(baseUrl, perKind) {
  const lines = [
    'version: "1"',
    "providers:",
    "  provider_c:",
    "    api_key: ${C_API_KEY}",
    `    base_url: ${baseUrl}`,
  ];
  const section = (kind, body) => {
    lines.push(`${kind}:`);
    for (let i = 0; i < perKind; i++) lines.push(`  r${i}:`, "    provider: provider_c", ...body(i));
  };
  section("environments", () => ["    config:", "      type: cloud"]);
  section("vaults", (i) => [`    display_name: Vault ${i}`]);
  section("memory_stores", (i) => [`    description: Store ${i}`]);
  section("agents", (i) => [
    "    model: claude-sonnet-4-5",
    `    instructions: Agent number ${i}.`,
    `    vault: r${i}`,
    `    memory_stores: [r${i}]`,
  ]);
  section("deployments", (i) => [
    `    agent: r${i}`,
    `    environment: r${i}`,
    "    initial_events:",
    "      - type: user.message",
    `        content: Run ${i}.`,
  ]);
  return `${lines.join("\n")}\n`;
}
