import { cfg } from "../helpers.js";
import { A, agent, B, C, D, identity, type RuleRow, twins } from "./rows.js";

/** Rule rows for the file, providers, variables, paths and resource kinds. */
export const CONFIG_RULES: RuleRow[] = [
  {
    code: "AGENTS1000",
    rule: "YAML syntax",
    invalid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: "x\n@@',
    valid: cfg(C, ""),
  },
  {
    code: "AGENTS1000",
    rule: "an alias names an anchor set before it",
    invalid: cfg(C, "x-tools: &tools { builtin: [bash] }\nagents:\n" + agent("a", "tools: @@*missing_tools")),
    valid: cfg(
      C,
      "x-tools: &missing_tools { builtin: [bash] }\nagents:\n" + agent("a", "tools: *missing_tools"),
    ),
  },
  {
    code: "AGENTS1000",
    rule: "an alias set after its use",
    invalid: cfg(C, "agents:\n" + agent("a", "tools: @@*later") + "\nx-tools: &later { builtin: [bash] }"),
    valid: cfg(C, "x-tools: &later { builtin: [bash] }\nagents:\n" + agent("a", "tools: *later")),
  },
  {
    code: "AGENTS1000",
    rule: "an alias inside the value its anchor names (a value containing itself)",
    ...twins(cfg(C, "agents:\n" + agent("a", "metadata: &m {self: [[@@*m|me]]}"))),
  },
  {
    code: "AGENTS1000",
    rule: "a merge from a scalar, at the scalar",
    ...twins(cfg(C, "x-d: &d {model: m}\nagents:\n  a:\n    <<: [[@@5|*d]]\n    instructions: x")),
  },
  {
    code: "AGENTS1000",
    rule: "a merge list holding a scalar, at the scalar",
    ...twins(cfg(C, "x-d: &d {model: m}\nagents:\n  a:\n    <<: [*d, [[@@3|{}]]]\n    instructions: x")),
  },
  {
    code: "AGENTS1001",
    rule: "a wrongly typed merged value, at the merge, not as missing",
    invalid: cfg(C, "x-d: &d {model: 5}\nagents:\n  a:\n    <<: @@*d\n    instructions: x"),
    valid: cfg(C, "x-d: &d {model: m}\nagents:\n  a:\n    <<: *d\n    instructions: x"),
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
    ...twins(cfg(C, "agents:\n" + agent("a", "[[@@instruction: typo|description: fine]]"))),
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
    code: "AGENTS1007",
    rule: "secrets are written as ${VAR}, not inline (warning)",
    severity: "warning",
    invalid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: @@sk-live-123',
    valid: 'version: "1"\nproviders:\n  provider_c:\n    api_key: ${KEY}',
  },
  {
    code: "AGENTS1008",
    rule: "a git token is never written in the file (error)",
    invalid: cfg(
      C,
      "agents:\n" +
        agent(
          "a",
          "resources:",
          "  - type: git_repository",
          "    url: https://g/r",
          "    authorization_token: @@ghp_literal123",
        ),
    ),
    valid: cfg(
      C,
      "agents:\n" +
        agent(
          "a",
          "resources:",
          "  - type: git_repository",
          "    url: https://g/r",
          "    authorization_token: ${TOKEN}",
        ),
    ),
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
    code: "AGENTS1011",
    rule: "a ${ never closed is refused, not sent as a literal key",
    ...twins('version: "1"\nproviders:\n  provider_c:\n    api_key: [[@@${KEY|${KEY}]]'),
  },
  {
    code: "AGENTS1020",
    rule: "local path must exist",
    ...twins(cfg(C, "skills:\n  s:\n    source: [[@@./no-such-dir|./skills/review]]")),
  },
  {
    code: "AGENTS1021",
    rule: "skill source is a directory",
    ...twins(cfg(C, "skills:\n  s:\n    source: [[@@./data.txt|skills/review]]")),
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
    ...twins(
      cfg(C, "environments:\n  e:\n    provider: [[@@provider_b|provider_c]]\n    config: {type: cloud}"),
    ),
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
    ...twins(cfg(B, identity, "  identity: [[@@bob|alice]]")),
  },
  {
    code: "AGENTS1035",
    rule: "provider_a workspace_id begins with llm-",
    ...twins('version: "1"\nproviders:\n  provider_a:\n    api_key: k\n    workspace_id: [[@@ws-1|llm-1]]'),
  },
  {
    code: "AGENTS1036",
    rule: "a provider endpoint is https:// or loopback, unless the block opts in",
    invalid:
      'version: "1"\nproviders:\n  provider_c:\n    api_key: k\n    base_url: @@http://api.example.com/v1',
    valid:
      'version: "1"\nproviders:\n  provider_c:\n    api_key: k\n    base_url: http://api.example.com/v1\n    allow_insecure_http: true',
  },
  {
    code: "AGENTS1040",
    rule: "reference names a declared resource",
    ...twins(
      cfg(
        C,
        "environments:\n  dev:\n    config: {type: cloud}\nagents:\n" +
          agent("a", "environment: [[@@dve|dev]]"),
      ),
    ),
  },
  {
    code: "AGENTS1041",
    rule: "reference declared for the same provider",
    ...twins(
      cfg(
        [...C, ...D],
        "environments:\n  dev:\n    provider: [[provider_d|provider_c]]\n    config: {type: cloud}\nagents:\n" +
          agent("a", "provider: provider_c", "environment: [[@@|]]dev"),
      ),
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
    ...twins(
      cfg(
        [...B, ...C],
        "tunnels:\n  office:\n    tunnel_id: tnl_1\nagents:\n" +
          agent("a", "provider: [[provider_c|provider_b]]", "tunnel: [[@@|]]office"),
      ),
    ),
  },
  {
    code: "AGENTS1052",
    rule: "per-provider model map covers every target",
    ...twins(
      cfg(
        [...C, ...D],
        "agents:\n  a:\n    model: [[@@{provider_c: m|{provider_c: m, provider_d: n]]}\n    instructions: x",
        "  provider: all",
      ),
    ),
  },
  {
    code: "AGENTS1060",
    rule: "a postgres state needs url",
    invalid: cfg(C, "state:\n  @@backend: postgres"),
    valid: cfg(C, "state:\n  backend: postgres\n  url: ${STATE_URL}"),
  },
  {
    code: "AGENTS1061",
    rule: "state fields belong to their backend",
    invalid: cfg(C, "state:\n  path: states/dev.json\n  url: @@${STATE_URL}"),
    valid: cfg(C, "state:\n  path: states/dev.json"),
  },
  {
    code: "AGENTS1062",
    rule: "a state URL with a password is never written in the file",
    invalid: cfg(
      C,
      "state:\n  backend: postgres\n  url: @@postgres://agents:literal-pw@db.internal:5432/agents",
    ),
    valid: cfg(
      C,
      "state:\n  backend: postgres\n  url: postgres://agents@db.internal:5432/agents\n  workspace: prod",
    ),
  },
  {
    code: "AGENTS1063",
    rule: "the state URL is a postgres URL",
    invalid: cfg(C, "state:\n  backend: postgres\n  url: @@mysql://db.internal/agents"),
    valid: cfg(C, "state:\n  backend: postgres\n  url: ${STATE_URL}\n  schema: team_state"),
  },
  {
    code: "AGENTS1064",
    rule: "a committed postgres state names its workspace",
    severity: "warning",
    invalid: cfg(C, "state:\n  @@backend: postgres\n  url: ${STATE_URL}"),
    valid: cfg(C, "state:\n  backend: postgres\n  url: ${STATE_URL}\n  workspace: shop"),
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
    ...twins(
      cfg(
        A,
        "environments:\n  e:\n    config:\n      type: cloud\n      networking:\n        type: [[@@limited|unrestricted]]",
      ),
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
    code: "AGENTS1113",
    rule: "static_bearer protocol where the wire has no such field: accepted, not sent (warning)",
    severity: "warning",
    invalid: cfg(
      C,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: static_bearer\n        mcp_server_url: https://m\n        access_token: ${TOKEN}\n        protocol: @@sse",
    ),
    valid: cfg(
      B,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: static_bearer\n        mcp_server_url: https://m\n        access_token: ${TOKEN}\n        protocol: sse",
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
    ...twins(
      cfg(
        C,
        "vaults:\n  v:\n    credentials:\n      - {name: t, type: environment_variable, secret_name: A, secret_value: x}\n      - {name: [[@@t|u]], type: environment_variable, secret_name: B, secret_value: y}",
      ),
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
    ...twins(cfg(B, "identities:\n  alice:\n    identity_id: [[@@user_1|idn_1]]")),
  },
  {
    code: "AGENTS1125",
    rule: "tunnel_id prefix tnl_",
    ...twins(cfg(B, "tunnels:\n  office:\n    tunnel_id: [[@@tun_1|tnl_1]]")),
  },
  {
    code: "AGENTS1114",
    rule: "credential networking: unrestricted takes no host list",
    ...twins(
      cfg(
        A,
        "vaults:\n  v:\n    credentials:\n      - name: t\n        type: environment_variable\n        secret_name: T\n        secret_value: ${TOKEN}\n        networking:\n          type: [[unrestricted|limited]]\n          allowed_hosts: [[@@|]][api.example.com]",
      ),
    ),
  },
  {
    code: "AGENTS1114",
    rule: "credential networking: an allowed_hosts list is never empty",
    invalid: cfg(
      C,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: environment_variable\n        secret_name: T\n        secret_value: ${TOKEN}\n        networking:\n          allowed_hosts: @@[]",
    ),
    valid: cfg(
      C,
      "vaults:\n  v:\n    credentials:\n      - name: t\n        type: environment_variable\n        secret_name: T\n        secret_value: ${TOKEN}\n        networking:\n          allowed_hosts: ['*']",
    ),
  },
  {
    code: "AGENTS1009",
    rule: "metadata within the provider's limits: at most 16 pairs counting the two ownership keys (provider_d)",
    invalid: cfg(
      D,
      `agents:\n${agent("a", "metadata:", ...Array.from({ length: 15 }, (_, i) => `  ${i === 0 ? "@@" : ""}k${i}: v`))}`,
    ),
    valid: cfg(
      D,
      `agents:\n${agent("a", "metadata:", ...Array.from({ length: 14 }, (_, i) => `  k${i}: v`))}`,
    ),
  },
  {
    code: "AGENTS1009",
    rule: "metadata keys of at most 64 characters (provider_c)",
    invalid: cfg(C, `agents:\n${agent("a", "metadata:", `  @@${"k".repeat(65)}: v`)}`),
    valid: cfg(C, `agents:\n${agent("a", "metadata:", `  ${"k".repeat(64)}: v`)}`),
  },
  {
    code: "AGENTS1009",
    rule: "metadata values of at most 512 characters (provider_c deployments)",
    invalid: cfg(
      C,
      `agents:\n${agent("a")}\nenvironments:\n  e:\n    config: {type: cloud}\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    metadata:\n      note: @@${"v".repeat(513)}`,
    ),
    valid: cfg(
      B,
      `agents:\n${agent("a")}\nenvironments:\n  e:\n    config: {type: cloud}\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    metadata:\n      note: ${"v".repeat(513)}`,
    ),
  },
  {
    code: "AGENTS1140",
    rule: "memory entry keys are relative paths without . or .. segments",
    ...twins(
      cfg(B, "memory_stores:\n  notes:\n    entries:\n      - key: [[@@../up.md|up.md]]\n        content: x"),
    ),
  },
  {
    code: "AGENTS1140",
    rule: "memory entry keys within the provider's depth limit (provider_c: 20 segments)",
    invalid: cfg(
      C,
      `memory_stores:\n  notes:\n    entries:\n      - key: @@${"d/".repeat(20)}x.md\n        content: x`,
    ),
    valid: cfg(
      B,
      `memory_stores:\n  notes:\n    entries:\n      - key: ${"d/".repeat(20)}x.md\n        content: x`,
    ),
  },
  {
    code: "AGENTS1141",
    rule: "one entry per memory path (a leading / names the same path)",
    ...twins(
      cfg(
        C,
        "memory_stores:\n  notes:\n    entries:\n      - {key: a.md, content: x}\n      - {key: [[@@/a.md|/b.md]], content: y}",
      ),
    ),
  },
  {
    code: "AGENTS1130",
    rule: "official skills are referenced from agents, never declared for upload",
    ...twins(cfg(A, "skills:\n  pptx:\n    source: skills/review\n    origin: [[@@official|custom]]")),
  },
  {
    code: "AGENTS1022",
    rule: "a skill directory has SKILL.md at its root",
    ...twins(cfg(B, "skills:\n  notes:\n    source: [[@@skills/bare|skills/review]]")),
  },
  {
    code: "AGENTS1023",
    rule: "SKILL.md names the skill where the provider names it after the frontmatter",
    invalid: cfg(D, "skills:\n  notes:\n    source: @@skills/nameless"),
    valid: cfg(B, "skills:\n  notes:\n    source: skills/nameless"),
  },
];
