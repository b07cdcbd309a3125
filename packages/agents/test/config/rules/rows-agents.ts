import { cfg } from "../helpers.js";
import { A, agent, B, C, D, forward, forwardDelivery, identity, type RuleRow, twins } from "./rows.js";

/** An agent with one git repository resource whose `checkout:` block holds `lines`. */
function REPO(...lines: string[]): string {
  return (
    "agents:\n" +
    agent(
      "a",
      "resources:",
      "  - type: git_repository",
      "    url: https://github.com/acme/app",
      "    checkout:",
      ...lines,
    )
  );
}

/** Rule rows for agents: tools, MCP, delivery, memory and multi-agent rosters. */
export const AGENTS_RULES: RuleRow[] = [
  {
    code: "AGENTS1200",
    rule: "builtin tools known to the provider",
    invalid: cfg(A, "agents:\n" + agent("a", "tools:", "  builtin: [bash, @@web_fetch]")),
    valid: cfg(C, "agents:\n" + agent("a", "tools:", "  builtin: [bash, web_fetch]")),
  },
  {
    code: "AGENTS1201",
    rule: "permissions: unknown tool names rejected",
    invalid: cfg(
      C,
      "agents:\n" + agent("a", "tools:", "  builtin: [bash]", "  permissions:", "    @@bsh: ask"),
    ),
    valid: cfg(C, "agents:\n" + agent("a", "tools:", "  builtin: [bash]", "  permissions:", "    BASH: ask")),
  },
  {
    code: "AGENTS1202",
    rule: "permissions: duplicate normalized names rejected",
    invalid: cfg(
      C,
      "agents:\n" +
        agent(
          "a",
          "tools:",
          "  builtin: [web_fetch]",
          "  permissions:",
          "    WebFetch: ask",
          "    @@web-fetch: allow",
        ),
    ),
    valid: cfg(
      C,
      "agents:\n" + agent("a", "tools:", "  builtin: [web_fetch]", "  permissions:", "    Web-Fetch: ask"),
    ),
  },
  {
    code: "AGENTS1203",
    rule: "ask permission unsupported on provider_a",
    ...twins(
      cfg(
        A,
        "agents:\n" + agent("a", "tools:", "  builtin: [bash]", "  default_permission: [[@@ask|allow]]"),
      ),
    ),
  },
  {
    code: "AGENTS1204",
    rule: "permission for a tool not enabled (warning)",
    severity: "warning",
    invalid: cfg(
      C,
      "agents:\n" + agent("a", "tools:", "  builtin: [bash]", "  permissions:", "    @@read: ask"),
    ),
    valid: cfg(
      C,
      "agents:\n" + agent("a", "tools:", "  builtin: [bash, read]", "  permissions:", "    read: ask"),
    ),
  },
  {
    code: "AGENTS1037",
    rule: "git checkout: a commit is pinned by its full SHA",
    ...twins(cfg(C, REPO("      commit: [[@@abc1234|4f2a9c0e1b7d3a5f6c8e9b0a1d2c3e4f5a6b7c8d]]"))),
  },
  {
    code: "AGENTS1037",
    rule: "git checkout: branch or commit, not both",
    invalid: cfg(C, REPO("      branch: main", "      commit: @@4f2a9c0e1b7d3a5f6c8e9b0a1d2c3e4f5a6b7c8d")),
    valid: cfg(C, REPO("      branch: main")),
  },
  {
    code: "AGENTS1037",
    rule: "git checkout: names a branch or a commit",
    invalid: cfg(C, REPO().replace("checkout:", "checkout: @@{}")),
    valid: cfg(C, REPO("      commit: 4f2a9c0e1b7d3a5f6c8e9b0a1d2c3e4f5a6b7c8d")),
  },
  {
    code: "AGENTS1205",
    rule: "MCP toolkit: snake_case and camelCase alias not both",
    ...twins(
      cfg(
        C,
        "agents:\n" +
          agent(
            "a",
            "mcp_servers: [{name: gh, url: https://m}]",
            "tools:",
            "  builtin: []",
            "  mcp:",
            "    - [[mcp_server_name|mcpServerName]]: gh",
            "      [[mcpServerName|defaultConfig]]: [[@@gh|{enabled: true}]]",
          ),
      ),
    ),
  },
  {
    code: "AGENTS1206",
    rule: "tools.mcp names a declared MCP server",
    ...twins(
      cfg(
        C,
        "agents:\n" +
          agent(
            "a",
            "mcp_servers: [{name: gh, url: https://m}]",
            "tools:",
            "  builtin: []",
            "  mcp:",
            "    - [[@@mcp_server_name: gl|mcp_server_name: gh]]",
          ),
      ),
    ),
  },
  {
    code: "AGENTS1207",
    rule: "MCP server form supported by the provider",
    ...twins(
      cfg(
        A,
        "agents:\n" +
          agent("a", "mcp_servers:", "  - [[@@|]]name: gh", "    [[url|type]]: [[https://m|official]]"),
      ),
    ),
  },
  {
    code: "AGENTS1208",
    rule: "MCP server: URL form needs url",
    invalid: cfg(C, "agents:\n" + agent("a", "mcp_servers:", "  - @@name: gh", "    type: url")),
    valid: cfg(
      C,
      "agents:\n" + agent("a", "mcp_servers:", "  - name: gh", "    type: url", "    url: https://m"),
    ),
  },
  {
    code: "AGENTS1209",
    rule: "a permission only for an enabled builtin, where the API refuses others (provider_b)",
    invalid: cfg(
      B,
      `agents:\n${agent("a", "tools:", "  builtin: [web_fetch]", "  permissions:", "    @@bash: allow")}`,
    ),
    valid: cfg(
      B,
      `agents:\n${agent("a", "tools:", "  builtin: [web_fetch, bash]", "  permissions:", "    bash: allow")}`,
    ),
  },
  {
    code: "AGENTS1210",
    rule: "managed_tool_config only with Forward delivery",
    invalid: cfg(B, "agents:\n" + agent("a", "managed_tool_config:", "  @@enabled_tools: []")),
    valid: cfg(B, "agents:\n" + agent("a", ...forward, "managed_tool_config:", "  enabled_tools: []")),
  },
  {
    code: "AGENTS1211",
    rule: "default_memory_store requires Forward delivery",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` + agent("a", "default_memory_store:", "  @@name: notes"),
      "  identity: alice",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` + agent("a", ...forward, "default_memory_store:", "  name: notes"),
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1212",
    rule: "default_memory_store requires defaults.identity",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` + agent("a", ...forward, "default_memory_store:", "  @@name: notes"),
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` + agent("a", ...forward, "default_memory_store:", "  name: notes"),
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1213",
    rule: "delete_on_destroy needs a managed identity",
    invalid: cfg(
      B,
      "identities:\n  alice:\n    identity_id: idn_1\nagents:\n" +
        agent("a", ...forward, "default_memory_store:", "  name: notes", "  delete_on_destroy: @@true"),
      "  identity: alice",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward, "default_memory_store:", "  name: notes", "  delete_on_destroy: true"),
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1214",
    rule: "default_memory_store.name 1 to 255 characters",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward, "default_memory_store:", `  name: @@${"n".repeat(256)}`),
      "  identity: alice",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward, "default_memory_store:", `  name: ${"n".repeat(255)}`),
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1215",
    rule: "default_memory_store.description at most 1024 characters",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward, "default_memory_store:", "  name: n", `  description: @@${"d".repeat(1025)}`),
      "  identity: alice",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward, "default_memory_store:", "  name: n", `  description: ${"d".repeat(1024)}`),
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1216",
    rule: "delivery block for a provider the agent does not target (warning)",
    severity: "warning",
    invalid: cfg(C, "agents:\n" + agent("a", "delivery:", "  @@provider_b:", "    type: forward")),
    valid: cfg(B, "agents:\n" + agent("a", ...forward)),
  },
  {
    code: "AGENTS1217",
    rule: "environment_variables only on provider_b",
    invalid: cfg(C, "agents:\n" + agent("a", "environment_variables: @@{A: b}")),
    valid: cfg(B, "agents:\n" + agent("a", "environment_variables: {A: b}")),
  },
  {
    code: "AGENTS1218",
    rule: "Forward memory stores require defaults.identity",
    invalid: cfg(
      B,
      `${identity}\nmemory_stores:\n  notes: {}\nagents:\n` +
        agent("a", ...forward, "memory_stores: @@[notes]"),
    ),
    valid: cfg(
      B,
      `${identity}\nmemory_stores:\n  notes: {}\nagents:\n` +
        agent("a", ...forward, "memory_stores: [notes]"),
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1221",
    rule: "limited networking is not silently dropped for a Forward agent",
    invalid: cfg(
      B,
      "environments:\n  e:\n    config:\n      type: cloud\n      networking:\n        type: @@limited\n        allowed_hosts: [a.example]\nagents:\n" +
        agent("a", ...forwardDelivery, "environment: e"),
    ),
    valid: cfg(
      B,
      "environments:\n  e:\n    config:\n      type: cloud\n      networking:\n        type: limited\n        allowed_hosts: [a.example]\nagents:\n" +
        agent("a", "environment: e"),
    ),
  },
  {
    code: "AGENTS1224",
    rule: "environment variable names are identifiers",
    ...twins(
      cfg(B, `agents:\n${agent("a", ...forward, "environment_variables:", "  [[@@1BAD|GOOD_1]]: x")}`),
    ),
  },
  {
    code: "AGENTS1225",
    rule: 'a ";" in a provider_b managed agent\'s variable value cannot start a session (warning)',
    severity: "warning",
    invalid: cfg(B, `agents:\n${agent("a", "environment_variables:", '  MODE: @@"a;b"')}`),
    // A Forward Template takes its variables as a map: the ";" is carried.
    valid: cfg(B, `agents:\n${agent("a", ...forward, "environment_variables:", '  MODE: "a;b"')}`),
  },
  {
    code: "AGENTS1223",
    rule: "a provider_b Forward agent needs an environment",
    invalid: cfg(B, "agents:\n" + agent("a", ...forwardDelivery).replace("  a:", "  @@a:")),
    valid: cfg(B, "agents:\n" + agent("a", ...forward)),
  },
  {
    code: "AGENTS1222",
    rule: "a file by path is inherited only by a Forward agent",
    invalid: cfg(B, "agents:\n" + agent("a", "files: [@@data.txt]")),
    valid: cfg(B, "agents:\n" + agent("a", ...forward, "files: [data.txt]")),
  },
  {
    code: "AGENTS1219",
    rule: "a local resource is not shared by Managed and Forward agents",
    invalid: cfg(
      B,
      "environments:\n  dev:\n    config: {type: cloud}\nagents:\n" +
        agent("m", "environment: dev") +
        "\n" +
        agent("f", ...forwardDelivery, "environment: @@dev"),
    ),
    valid: cfg(
      B,
      "environments:\n  dev:\n    config: {type: cloud}\n  dev2:\n    config: {type: cloud}\nagents:\n" +
        agent("m", "environment: dev") +
        "\n" +
        agent("f", ...forwardDelivery, "environment: dev2"),
    ),
  },
  {
    code: "AGENTS1220",
    rule: "session git repositories only on provider_b and provider_c",
    invalid: cfg(D, "agents:\n" + agent("a", "resources: @@[{type: git_repository, url: https://g/r}]")),
    valid: cfg(C, "agents:\n" + agent("a", "resources: [{type: git_repository, url: https://g/r}]")),
  },
  {
    code: "AGENTS1300",
    rule: "roster at most 20 members",
    invalid: cfg(
      C,
      "agents:\n" +
        agent(
          "lead",
          "multiagent:",
          `  agents: @@[${Array.from({ length: 21 }, (_, i) => `{agent_id: agent_${i}}`).join(", ")}]`,
        ),
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent(
          "lead",
          "multiagent:",
          `  agents: [${Array.from({ length: 20 }, (_, i) => `{agent_id: agent_${i}}`).join(", ")}]`,
        ),
    ),
  },
  {
    code: "AGENTS1301",
    rule: "roster self reference",
    invalid: cfg(
      C,
      "agents:\n" + agent("lead", "multiagent:", "  agents: [worker, @@lead]") + "\n" + agent("worker"),
    ),
    valid: cfg(C, "agents:\n" + agent("lead", "multiagent:", "  agents: [worker]") + "\n" + agent("worker")),
  },
  {
    code: "AGENTS1302",
    rule: "nested coordinator",
    invalid: cfg(
      C,
      "agents:\n" +
        agent("lead", "multiagent:", "  agents: [@@sub]") +
        "\n" +
        agent("sub", "multiagent:", "  agents: [worker]") +
        "\n" +
        agent("worker"),
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent("lead", "multiagent:", "  agents: [sub, worker]") +
        "\n" +
        agent("sub") +
        "\n" +
        agent("worker"),
    ),
  },
  {
    code: "AGENTS1303",
    rule: "roster cycle",
    invalid: cfg(
      C,
      "agents:\n" +
        agent("a", "multiagent:", "  agents: [@@b]") +
        "\n" +
        agent("b", "multiagent:", "  agents: [c]") +
        "\n" +
        agent("c", "multiagent:", "  agents: [a]"),
    ),
    valid: cfg(
      C,
      "agents:\n" + agent("a", "multiagent:", "  agents: [b, c]") + "\n" + agent("b") + "\n" + agent("c"),
    ),
  },
  {
    code: "AGENTS1304",
    rule: "{agent_id} rejected in a provider_b Forward coordinator",
    invalid: cfg(
      B,
      "agents:\n" + agent("lead", ...forward, "multiagent:", "  agents: [@@{agent_id: agent_1}]"),
    ),
    valid: cfg(B, "agents:\n" + agent("lead", "multiagent:", "  agents: [{agent_id: agent_1}]")),
  },
  {
    code: "AGENTS1305",
    rule: "provider_b members use the coordinator's delivery",
    invalid: cfg(
      B,
      "agents:\n" + agent("lead", ...forward, "multiagent:", "  agents: [@@worker]") + "\n" + agent("worker"),
    ),
    valid: cfg(
      B,
      "agents:\n" +
        agent("lead", ...forward, "multiagent:", "  agents: [worker]") +
        "\n" +
        agent("worker", ...forward),
    ),
  },
  {
    code: "AGENTS1306",
    rule: "roster member listed twice",
    invalid: cfg(
      C,
      "agents:\n" + agent("lead", "multiagent:", "  agents: [worker, @@worker]") + "\n" + agent("worker"),
    ),
    valid: cfg(C, "agents:\n" + agent("lead", "multiagent:", "  agents: [worker]") + "\n" + agent("worker")),
  },
];
