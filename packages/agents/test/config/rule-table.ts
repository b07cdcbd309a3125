import { cfg } from "./helpers.js";

/**
 * One row per rule: `invalid` must produce `code` at the `@@` mark; `valid` is the nearest
 * correct file and must produce no error at all (and no diagnostic with `code`).
 */
export interface RuleRow {
  code: string;
  rule: string;
  invalid: string;
  valid: string;
  severity?: "error" | "warning";
}

const A = ["provider_a"];
const B = ["provider_b"];
const C = ["provider_c"];
const D = ["provider_d"];

/** An agent block (two-space indented under `agents:`). */
function agent(name: string, ...extra: string[]): string {
  return [
    `  ${name}:`,
    "    model: m",
    "    instructions: Do the work.",
    ...extra.map((l) => `    ${l}`),
  ].join("\n");
}

const identity = "identities:\n  alice:\n    external_id: user-1";
const forward = ["delivery:", "  provider_b:", "    type: forward"];

export const RULES: RuleRow[] = [
  {
    code: "AGENTS1000",
    rule: "YAML syntax",
    invalid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: "x\n@@',
    valid: cfg(C, ""),
  },
  {
    code: "AGENTS1001",
    rule: "wrong type",
    invalid: cfg(C, "agents:\n" + agent("a", "memory_stores: @@notalist")),
    valid: cfg(C, "memory_stores:\n  notes: {}\nagents:\n" + agent("a", "memory_stores: [notes]")),
  },
  {
    code: "AGENTS1002",
    rule: "unknown field with suggestion",
    invalid: cfg(C, "agents:\n" + agent("a", "@@instruction: typo")),
    valid: cfg(C, "agents:\n" + agent("a", "description: fine")),
  },
  {
    code: "AGENTS1003",
    rule: "missing required field",
    invalid: cfg(C, "agents:\n  @@a:\n    model: m"),
    valid: cfg(C, "agents:\n" + agent("a")),
  },
  {
    code: "AGENTS1004",
    rule: 'version is the string "1"',
    invalid: "version: @@1\nproviders:\n  provider_c:\n    api_key: k",
    valid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: k',
  },
  {
    code: "AGENTS1005",
    rule: "top level is a mapping",
    invalid: "@@- just\n- a list",
    valid: cfg(C, ""),
  },
  {
    code: "AGENTS1010",
    rule: "unset variable",
    invalid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: @@${NOT_SET_ANYWHERE_123}',
    valid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: ${KEY}',
  },
  {
    code: "AGENTS1011",
    rule: "malformed variable reference",
    invalid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: @@${1BAD}',
    valid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: $${LITERAL}',
  },
  {
    code: "AGENTS1020",
    rule: "local path must exist",
    invalid: cfg(C, "skills:\n  s:\n    source: @@./no-such-dir"),
    valid: cfg(C, "skills:\n  s:\n    source: ./skills/review"),
  },
  {
    code: "AGENTS1021",
    rule: "skill source is a directory",
    invalid: cfg(C, "skills:\n  s:\n    source: @@./data.txt"),
    valid: cfg(C, "skills:\n  s:\n    source: skills/review"),
  },
  {
    code: "AGENTS1030",
    rule: "at least one provider",
    invalid: 'version: "1"\nproviders: @@{}',
    valid: cfg(C, ""),
  },
  {
    code: "AGENTS1031",
    rule: "unknown provider key",
    invalid: 'version: "1"\nproviders:\n  @@provider_x:\n    api_key: k',
    valid: cfg(C, ""),
  },
  {
    code: "AGENTS1032",
    rule: "provider pin names a declared provider",
    invalid: cfg(C, "environments:\n  e:\n    provider: @@provider_b\n    config: {type: cloud}"),
    valid: cfg(C, "environments:\n  e:\n    provider: provider_c\n    config: {type: cloud}"),
  },
  {
    code: "AGENTS1033",
    rule: "target provider determinable",
    invalid: cfg([...C, ...D], "environments:\n  @@e:\n    config: {type: cloud}"),
    valid: cfg([...C, ...D], "environments:\n  e:\n    config: {type: cloud}", "  provider: all"),
  },
  {
    code: "AGENTS1034",
    rule: "defaults.identity is declared",
    invalid: cfg(B, identity, "  identity: @@bob"),
    valid: cfg(B, identity, "  identity: alice"),
  },
  {
    code: "AGENTS1035",
    rule: "provider_a workspace_id begins with llm-",
    invalid: 'version: "1"\nproviders:\n  provider_a:\n    api_key: k\n    workspace_id: @@ws-1',
    valid: 'version: "1"\nproviders:\n  provider_a:\n    api_key: k\n    workspace_id: llm-1',
  },
  {
    code: "AGENTS1040",
    rule: "reference names a declared resource",
    invalid: cfg(
      C,
      "environments:\n  dev:\n    config: {type: cloud}\nagents:\n" + agent("a", "environment: @@dve"),
    ),
    valid: cfg(
      C,
      "environments:\n  dev:\n    config: {type: cloud}\nagents:\n" + agent("a", "environment: dev"),
    ),
  },
  {
    code: "AGENTS1041",
    rule: "reference declared for the same provider",
    invalid: cfg(
      [...C, ...D],
      "environments:\n  dev:\n    provider: provider_d\n    config: {type: cloud}\nagents:\n" +
        agent("a", "provider: provider_c", "environment: @@dev"),
    ),
    valid: cfg(
      [...C, ...D],
      "environments:\n  dev:\n    provider: provider_c\n    config: {type: cloud}\nagents:\n" +
        agent("a", "provider: provider_c", "environment: dev"),
    ),
  },
  {
    code: "AGENTS1050",
    rule: "memory stores unsupported on provider_a",
    invalid: cfg(A, "memory_stores:\n  @@notes: {}"),
    valid: cfg(C, "memory_stores:\n  notes: {}"),
  },
  {
    code: "AGENTS1050",
    rule: "top-level files only on provider_a and provider_d",
    invalid: cfg(C, "files:\n  @@data:\n    source: data.txt"),
    valid: cfg(D, "files:\n  data:\n    source: data.txt"),
  },
  {
    code: "AGENTS1050",
    rule: "identities only on provider_b",
    invalid: cfg(C, "identities:\n  @@alice:\n    external_id: u1"),
    valid: cfg(B, "identities:\n  alice:\n    external_id: u1"),
  },
  {
    code: "AGENTS1051",
    rule: "agent tunnel only on provider_b",
    invalid: cfg(
      [...B, ...C],
      "tunnels:\n  office:\n    tunnel_id: tnl_1\nagents:\n" +
        agent("a", "provider: provider_c", "tunnel: @@office"),
    ),
    valid: cfg(
      [...B, ...C],
      "tunnels:\n  office:\n    tunnel_id: tnl_1\nagents:\n" +
        agent("a", "provider: provider_b", "tunnel: office"),
    ),
  },
  {
    code: "AGENTS1052",
    rule: "per-provider model map covers every target",
    invalid: cfg(
      [...C, ...D],
      "agents:\n  a:\n    model: @@{provider_c: m}\n    instructions: x",
      "  provider: all",
    ),
    valid: cfg(
      [...C, ...D],
      "agents:\n  a:\n    model: {provider_c: m, provider_d: n}\n    instructions: x",
      "  provider: all",
    ),
  },
  {
    code: "AGENTS1100",
    rule: "provider_b packages apt/npm/pip only",
    invalid: cfg(
      B,
      "environments:\n  e:\n    config:\n      type: cloud\n      packages:\n        cargo: @@[ripgrep]",
    ),
    valid: cfg(
      B,
      "environments:\n  e:\n    config:\n      type: cloud\n      packages:\n        apt: [ripgrep]\n        cargo: []",
    ),
  },
  {
    code: "AGENTS1101",
    rule: "setup_script only on provider_b",
    invalid: cfg(C, "environments:\n  e:\n    config:\n      type: cloud\n      setup_script: @@echo hi"),
    valid: cfg(B, "environments:\n  e:\n    config:\n      type: cloud\n      setup_script: echo hi"),
  },
  {
    code: "AGENTS1102",
    rule: "setup_script at most 64 KB UTF-8",
    invalid: cfg(
      B,
      `environments:\n  e:\n    config:\n      type: cloud\n      setup_script: @@${"é".repeat(32769)}`,
    ),
    valid: cfg(
      B,
      `environments:\n  e:\n    config:\n      type: cloud\n      setup_script: ${"é".repeat(32768)}`,
    ),
  },
  {
    code: "AGENTS1103",
    rule: "provider_b self_hosted takes only type and setup_script",
    invalid: cfg(
      B,
      "environments:\n  e:\n    config:\n      type: self_hosted\n      networking: @@{type: unrestricted}",
    ),
    valid: cfg(B, "environments:\n  e:\n    config:\n      type: self_hosted\n      setup_script: echo ok"),
  },
  {
    code: "AGENTS1104",
    rule: "self_hosted only where supported",
    invalid: cfg(C, "environments:\n  e:\n    config:\n      type: @@self_hosted"),
    valid: cfg(B, "environments:\n  e:\n    config:\n      type: self_hosted"),
  },
  {
    code: "AGENTS1105",
    rule: "limited networking unsupported on provider_a",
    invalid: cfg(
      A,
      "environments:\n  e:\n    config:\n      type: cloud\n      networking:\n        type: @@limited",
    ),
    valid: cfg(
      A,
      "environments:\n  e:\n    config:\n      type: cloud\n      networking:\n        type: unrestricted",
    ),
  },
  {
    code: "AGENTS1110",
    rule: "credential type supported by the provider",
    invalid: cfg(
      A,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: @@static_bearer\n        mcp_server_url: https://m\n        access_token: ${TOKEN}",
    ),
    valid: cfg(
      C,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: static_bearer\n        mcp_server_url: https://m\n        access_token: ${TOKEN}",
    ),
  },
  {
    code: "AGENTS1111",
    rule: "limited credential networking lists hosts",
    invalid: cfg(
      A,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: environment_variable\n        secret_name: T\n        secret_value: 12345\n        networking: @@{type: limited}",
    ),
    valid: cfg(
      A,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: environment_variable\n        secret_name: T\n        secret_value: 12345\n        networking: {type: limited, allowed_hosts: [api.example.com]}",
    ),
  },
  {
    code: "AGENTS1112",
    rule: "credential names unique in a vault",
    invalid: cfg(
      C,
      "vaults:\n  v:\n    credentials:\n      - {name: t, type: environment_variable, secret_name: A, secret_value: x}\n      - {name: @@t, type: environment_variable, secret_name: B, secret_value: y}",
    ),
    valid: cfg(
      C,
      "vaults:\n  v:\n    credentials:\n      - {name: t, type: environment_variable, secret_name: A, secret_value: x}\n      - {name: u, type: environment_variable, secret_name: B, secret_value: y}",
    ),
  },
  {
    code: "AGENTS1120",
    rule: "identity: managed and external forms are exclusive",
    invalid: cfg(B, "identities:\n  alice:\n    identity_id: idn_1\n    external_id: @@user-1"),
    valid: cfg(B, "identities:\n  alice:\n    identity_id: idn_1"),
  },
  {
    code: "AGENTS1121",
    rule: "identity_id prefix idn_",
    invalid: cfg(B, "identities:\n  alice:\n    identity_id: @@user_1"),
    valid: cfg(B, "identities:\n  alice:\n    identity_id: idn_1"),
  },
  {
    code: "AGENTS1125",
    rule: "tunnel_id prefix tnl_",
    invalid: cfg(B, "tunnels:\n  office:\n    tunnel_id: @@tun_1"),
    valid: cfg(B, "tunnels:\n  office:\n    tunnel_id: tnl_1"),
  },
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
    invalid: cfg(A, "agents:\n" + agent("a", "tools:", "  builtin: [bash]", "  default_permission: @@ask")),
    valid: cfg(A, "agents:\n" + agent("a", "tools:", "  builtin: [bash]", "  default_permission: allow")),
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
    code: "AGENTS1205",
    rule: "MCP toolkit: snake_case and camelCase alias not both",
    invalid: cfg(
      C,
      "agents:\n" +
        agent(
          "a",
          "mcp_servers: [{name: gh, url: https://m}]",
          "tools:",
          "  builtin: []",
          "  mcp:",
          "    - mcp_server_name: gh",
          "      mcpServerName: @@gh",
        ),
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent(
          "a",
          "mcp_servers: [{name: gh, url: https://m}]",
          "tools:",
          "  builtin: []",
          "  mcp:",
          "    - mcpServerName: gh",
          "      defaultConfig: {enabled: true}",
        ),
    ),
  },
  {
    code: "AGENTS1206",
    rule: "tools.mcp names a declared MCP server",
    invalid: cfg(
      C,
      "agents:\n" +
        agent(
          "a",
          "mcp_servers: [{name: gh, url: https://m}]",
          "tools:",
          "  builtin: []",
          "  mcp:",
          "    - @@mcp_server_name: gl",
        ),
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent(
          "a",
          "mcp_servers: [{name: gh, url: https://m}]",
          "tools:",
          "  builtin: []",
          "  mcp:",
          "    - mcp_server_name: gh",
        ),
    ),
  },
  {
    code: "AGENTS1207",
    rule: "MCP server form supported by the provider",
    invalid: cfg(A, "agents:\n" + agent("a", "mcp_servers:", "  - @@name: gh", "    url: https://m")),
    valid: cfg(A, "agents:\n" + agent("a", "mcp_servers:", "  - name: gh", "    type: official")),
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
    valid: cfg(B, "agents:\n" + agent("a", "delivery:", "  provider_b:", "    type: forward")),
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
    code: "AGENTS1219",
    rule: "a local resource is not shared by Managed and Forward agents",
    invalid: cfg(
      B,
      "environments:\n  dev:\n    config: {type: cloud}\nagents:\n" +
        agent("m", "environment: dev") +
        "\n" +
        agent("f", ...forward, "environment: @@dev"),
    ),
    valid: cfg(
      B,
      "environments:\n  dev:\n    config: {type: cloud}\n  dev2:\n    config: {type: cloud}\nagents:\n" +
        agent("m", "environment: dev") +
        "\n" +
        agent("f", ...forward, "environment: dev2"),
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
  {
    code: "AGENTS1400",
    rule: "absolute mount path under the provider root (provider_b: /data/)",
    invalid: cfg(
      B,
      "agents:\n" +
        agent(
          "a",
          "resources:",
          "  - type: git_repository",
          "    url: https://g/r",
          "    mount_path: @@/workspace/r",
        ),
    ),
    valid: cfg(
      B,
      "agents:\n" +
        agent(
          "a",
          "resources:",
          "  - type: git_repository",
          "    url: https://g/r",
          "    mount_path: /data/r",
        ),
    ),
  },
  {
    code: "AGENTS1400",
    rule: "absolute mount path under the provider root (provider_a: /mnt)",
    invalid: cfg(
      A,
      "files:\n  data:\n    source: data.txt\nagents:\n" +
        agent("a", "files:", "  - file: data", "    mount_path: @@/data/x.txt"),
    ),
    valid: cfg(
      A,
      "files:\n  data:\n    source: data.txt\nagents:\n" +
        agent("a", "files:", "  - file: data", "    mount_path: inputs/x.txt"),
    ),
  },
  {
    code: "AGENTS1500",
    rule: "initial_events 1 to 50",
    invalid: cfg(
      C,
      "agents:\n" + agent("a") + "\ndeployments:\n  d:\n    agent: a\n    initial_events: @@[]",
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events: [{type: user.message, content: hi}]",
    ),
  },
  {
    code: "AGENTS1501",
    rule: "max_iterations 1 to 20",
    invalid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        max_iterations: @@21",
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        max_iterations: 20",
    ),
  },
  {
    code: "AGENTS1502",
    rule: "rubric and rubric_file are alternatives",
    invalid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        rubric: be good\n        rubric_file: @@rubric.md",
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        rubric_file: rubric.md",
    ),
  },
  {
    code: "AGENTS1503",
    rule: "schedule.expression is 5-field cron",
    invalid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    schedule:\n      expression: @@0 0 9 * * 1",
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    schedule:\n      expression: 0 9 * * 1-5",
    ),
  },
  {
    code: "AGENTS1504",
    rule: "schedule.timezone is an IANA zone",
    invalid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    schedule:\n      expression: 0 9 * * *\n      timezone: @@Mars/Olympus",
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    schedule:\n      expression: 0 9 * * *\n      timezone: Europe/Berlin",
    ),
  },
  {
    code: "AGENTS1505",
    rule: "provider_b deployment with a tunnel: the tunnel is dropped (warning)",
    severity: "warning",
    invalid: cfg(
      B,
      "tunnels:\n  office:\n    tunnel_id: tnl_1\nagents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    tunnel: @@office",
    ),
    valid: cfg(
      B,
      "tunnels:\n  office:\n    tunnel_id: tnl_1\nagents:\n" +
        agent("a", "tunnel: office") +
        "\ndeployments:\n  d:\n    agent: a",
    ),
  },
  {
    code: "AGENTS1506",
    rule: "provider_d runs no schedules (warning)",
    severity: "warning",
    invalid: cfg(
      D,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    schedule: @@{expression: 0 9 * * *}",
    ),
    valid: cfg(
      C,
      "agents:\n" + agent("a") + "\ndeployments:\n  d:\n    agent: a\n    schedule: {expression: 0 9 * * *}",
    ),
  },
  {
    code: "AGENTS1507",
    rule: "deployment file resource needs file_id or source",
    invalid: cfg(
      D,
      "agents:\n" + agent("a") + "\ndeployments:\n  d:\n    agent: a\n    resources:\n      - @@type: file",
    ),
    valid: cfg(
      D,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    resources:\n      - type: file\n        source: data.txt",
    ),
  },
  {
    code: "AGENTS1600",
    rule: "fixed channel needs an agent",
    invalid: cfg(B, `${identity}\nchannels:\n  @@ding:\n    type: wechat`, "  identity: alice"),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  ding:\n    type: wechat\n    agent: a",
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1601",
    rule: "fixed channel needs an identity",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  @@ding:\n    type: wechat\n    agent: a",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  ding:\n    type: wechat\n    agent: a\n    identity: alice",
    ),
  },
  {
    code: "AGENTS1602",
    rule: "pairing ignores agent and identity (warning)",
    severity: "warning",
    invalid: cfg(
      B,
      "agents:\n" + agent("a") + "\nchannels:\n  group:\n    type: wechat\n    mode: pairing\n    agent: @@a",
    ),
    valid: cfg(B, "channels:\n  group:\n    type: wechat\n    mode: pairing"),
  },
  {
    code: "AGENTS1603",
    rule: "provider_b fixed channel requires a Forward agent",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` + agent("a") + "\nchannels:\n  ding:\n    type: wechat\n    agent: @@a",
      "  identity: alice",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  ding:\n    type: wechat\n    agent: a",
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1604",
    rule: "channel type offered by the provider",
    invalid: cfg(B, "channels:\n  g:\n    type: @@slack\n    mode: pairing"),
    valid: cfg(
      B,
      'channels:\n  g:\n    type: feishu\n    mode: pairing\n    credentials: {app_id: a, app_secret: "${TOKEN}"}',
    ),
  },
  {
    code: "AGENTS1605",
    rule: "credential-based channel types need their keys",
    invalid: cfg(
      B,
      "channels:\n  g:\n    type: dingtalk\n    mode: pairing\n    credentials: @@{client_id: a}",
    ),
    valid: cfg(
      B,
      'channels:\n  g:\n    type: dingtalk\n    mode: pairing\n    credentials: {client_id: a, client_secret: "${TOKEN}"}',
    ),
  },
];
