// The convergence matrix's rows: one per (provider, kind, form)
// docs/configuration.md#provider-capabilities allows, each its own project against the simulators.
// convergence/matrix.test.ts runs every row in-process through the library API; e2e/matrix.test.ts
// runs a few through the spawned CLI to prove its wiring.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { KINDS, type Kind } from "../../src/model/kinds.js";
import { PROVIDERS } from "../../src/providers/catalog.js";

export type Provider = "provider_a" | "provider_b" | "provider_c" | "provider_d";

export const KEYS: Record<Provider, string> = {
  provider_a: "sim-provider-a-key",
  provider_b: "sim-provider-b-key",
  provider_c: "sim-provider-c-key",
  provider_d: "sim-provider-d-key",
};

const HEADER: Record<Provider, string> = {
  provider_a: "  provider_a:\n    api_key: ${API_KEY}\n    workspace_id: llm-matrix\n",
  provider_b: "  provider_b:\n    api_key: ${API_KEY}\n",
  provider_c: "  provider_c:\n    api_key: ${API_KEY}\n",
  provider_d: "  provider_d:\n    api_key: ${API_KEY}\n",
};

/** Wire headers for a remote edit made behind the tool's back, with the simulator's key. */
export function wireHeaders(provider: Provider): Record<string, string> {
  if (provider === "provider_c")
    return {
      "x-api-key": KEYS.provider_c,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "managed-agents-2026-04-01",
      "content-type": "application/json",
    };
  return { authorization: `Bearer ${KEYS[provider]}`, "content-type": "application/json" };
}

export const SECRET = "matrix-secret-value-7731";
const SKILL = "---\nname: probe\ndescription: A probe skill\n---\n\nCheck the thing.\n";

export interface Row {
  provider: Provider;
  kind: Kind;
  form: string;
  /** Everything under the providers block. */
  yaml: string;
  /** Local files the row needs, by path relative to agents.yaml. */
  files?: Record<string, string>;
  /** A field the provider shows back, changed remotely: the drift step. */
  drift?: {
    address: string;
    /** Request path under the provider's base URL, given the remote id. */
    path: (id: string) => string;
    /** The body that changes the field (given the current remote object). */
    body: (current: Record<string, unknown>) => Record<string, unknown>;
    method?: string;
    /** The plan line that must show, exactly (or the lines, for a change of a whole block). */
    line?: string;
    lines?: string[];
  };
}

const env = (name = "e", extra = "") => `environments:\n  ${name}:\n    config:\n      type: cloud\n${extra}`;
const agent = (name: string, model: string, extra = "") =>
  `  ${name}:\n    model: ${model}\n    instructions: Be brief.\n${extra}`;
const MODEL: Record<Provider, string> = {
  provider_a: "qwen-plus",
  provider_b: "auto",
  provider_c: "claude-sonnet-4-5",
  provider_d: "doubao-seed-1-6",
};

/** One field of a kind POSTed remotely, planned as one drift line (provider_c/d update shape). */
function fieldDrift(
  provider: Provider,
  kind: Kind,
  name: string,
  field: string,
  edited: string,
  declared: string,
): Row["drift"] {
  return {
    address: `${provider}.${kind}["${name}"]`,
    path: (id) => `/${kind}/${id}`,
    body: () => ({ [field]: edited }),
    line: `~ ${field}: "${edited}" → "${declared}"`,
  };
}

/** An environment description changed remotely: each provider's own update shape. */
function envDrift(provider: Provider): Row["drift"] {
  return {
    address: `${provider}.environments["e"]`,
    path: (id) => `/environments/${id}`,
    // provider_a's update is the full object (what it leaves out is gone): send it back whole.
    body: (current) =>
      provider === "provider_a"
        ? { name: current.name, config: current.config, description: "Edited in the console." }
        : { description: "Edited in the console." },
    line: '~ description: "Edited in the console." → "Declared."',
  };
}

export const ROWS: Row[] = [];
for (const provider of ["provider_a", "provider_b", "provider_c", "provider_d"] as const) {
  const m = MODEL[provider];
  ROWS.push(
    {
      provider,
      kind: "environments",
      form: "cloud with packages and a description",
      yaml: env("e", "      packages:\n        pip: [httpx]\n    description: Declared.\n"),
      drift: envDrift(provider),
    },
    {
      provider,
      kind: "agents",
      form: "minimal",
      yaml: `agents:\n${agent("solo", m)}`,
      // The system prompt edited in the console: an update with the current version on every
      // provider (provider_b's managed agents update with PUT).
      drift: {
        address: `${provider}.agents["solo"]`,
        path: (id: string) => `/agents/${id}`,
        method: provider === "provider_b" ? "PUT" : "POST",
        body: (current: Record<string, unknown>) => ({ version: current.version, system: "Edited." }),
        line: '~ instructions: "Edited." → "Be brief."',
      },
    },
    {
      provider,
      kind: "agents",
      // provider_a cannot enforce `ask` (validate refuses it, AGENTS1203): its row overrides to allow.
      form: "builtin tools with a permission override",
      yaml: `agents:\n${agent("tooled", m, `    tools:\n      builtin: [bash, read, write]\n      default_permission: allow\n      permissions:\n        bash: ${provider === "provider_a" ? "allow" : "ask"}\n`)}`,
    },
    {
      provider,
      kind: "agents",
      form: "coordinator roster of two members",
      yaml: `agents:\n${agent("lead", m, "    multiagent:\n      type: coordinator\n      agents: [m1, m2]\n")}${agent("m1", m)}${agent("m2", m)}`,
    },
    {
      provider,
      kind: "skills",
      form: "custom, from a local folder, used by an agent",
      yaml: `skills:\n  probe:\n    source: skills/probe\n    description: A probe skill\nagents:\n${agent("skilled", m, "    skills: [probe]\n")}`,
      files: { "skills/probe/SKILL.md": SKILL },
    },
    {
      provider,
      kind: "deployments",
      form: "initial user.message on a schedule",
      yaml: `${env()}agents:\n${agent("runner", m, "    environment: e\n")}deployments:\n  nightly:\n    agent: runner\n    environment: e\n    schedule:\n      expression: "0 3 * * *"\n      timezone: UTC\n    initial_events:\n      - type: user.message\n        content: Run the nightly check.\n`,
    },
  );
}
for (const provider of ["provider_a", "provider_b", "provider_c", "provider_d"] as const) {
  ROWS.push({
    provider,
    kind: "vaults",
    form: "environment_variable credential with a secret",
    yaml: `vaults:\n  v:\n    credentials:\n      - name: token\n        type: environment_variable\n        secret_name: SERVICE_TOKEN\n        secret_value: \${SECRET}\n`,
  });
}
for (const provider of ["provider_b", "provider_c", "provider_d"] as const) {
  ROWS.push(
    {
      provider,
      kind: "vaults",
      form: "static_bearer credential for an MCP server",
      // `protocol` is valid by the spec everywhere: provider_b carries it; provider_c/d have no
      // such field, so validate warns (AGENTS1113), it is not sent, and the plan never flaps.
      yaml: `vaults:\n  v:\n    display_name: Declared vault\n    credentials:\n      - name: issues\n        type: static_bearer\n        mcp_server_url: https://issues.example.com/mcp\n        access_token: \${SECRET}\n        protocol: streamable_http\n`,
      ...(provider === "provider_b"
        ? {}
        : { drift: fieldDrift(provider, "vaults", "v", "display_name", "Edited vault", "Declared vault") }),
    },
    {
      provider,
      kind: "memory_stores",
      form: "with seeded entries, used by an agent",
      yaml: `memory_stores:\n  notes:\n    description: Shared notes\n    entries:\n      - key: /facts/sky.md\n        content: The sky is blue.\nagents:\n${agent("reader", MODEL[provider], "    memory_stores: [notes]\n")}`,
      ...(provider === "provider_b"
        ? {}
        : {
            drift: fieldDrift(
              provider,
              "memory_stores",
              "notes",
              "description",
              "Edited notes",
              "Shared notes",
            ),
          }),
    },
  );
}
for (const provider of ["provider_a", "provider_d"] as const) {
  ROWS.push({
    provider,
    kind: "files",
    form: "by path, mounted by name into an agent",
    yaml: `files:\n  glossary:\n    source: data/glossary.md\nagents:\n${agent("mounted", MODEL[provider], "    files:\n      - file: glossary\n        mount_path: reference/glossary.md\n")}`,
    files: { "data/glossary.md": "# Glossary\n\nSLA: service level agreement.\n" },
  });
}
const FORWARD = "    delivery:\n      provider_b:\n        type: forward\n";
const IDENTITY =
  "defaults:\n  identity: desk\nidentities:\n  desk:\n    external_id: desk-1\n    name: Desk\n";
ROWS.push(
  {
    provider: "provider_b",
    kind: "identities",
    form: "managed, with a Forward agent",
    yaml: `${IDENTITY}${env("fe")}agents:\n${agent("front", "auto", `    environment: fe\n${FORWARD}`)}`,
  },
  {
    provider: "provider_b",
    kind: "identities",
    form: "managed, metadata with numbers and booleans (sent as text)",
    yaml: `${IDENTITY}    metadata:\n      tier: 3\n      ratio: 0.5\n      vip: true\n      team: desk\n${env("fe")}agents:\n${agent("front", "auto", `    environment: fe\n${FORWARD}`)}`,
  },
  {
    provider: "provider_b",
    kind: "agents",
    form: "Forward with default_memory_store and an inherited file by path",
    yaml: `${IDENTITY}${env("fe")}agents:\n${agent("front", "auto", `    environment: fe\n    files:\n      - docs/guide.md\n    default_memory_store:\n      name: Desk memory\n${FORWARD}`)}`,
    files: { "docs/guide.md": "# Guide\n" },
  },
  {
    provider: "provider_b",
    kind: "tunnels",
    form: "an existing tunnel by id, used by an agent",
    yaml: `tunnels:\n  office:\n    tunnel_id: tnl_matrix0001\nenvironments:\n  byoc:\n    config:\n      type: self_hosted\nagents:\n${agent("inside", "auto", "    environment: byoc\n    tunnel: office\n")}`,
  },
);

// provider_b channels: every type, with the credential keys it takes (wechat is QR-only: none),
// bound to a Forward agent, plus a transport-only pairing channel.
const CHANNELS: Array<{ type: string; credentials: string; mode?: "pairing" }> = [
  { type: "dingtalk", credentials: "client_id: matrix-client\n      client_secret: ${SECRET}" },
  { type: "feishu", credentials: "app_id: matrix-app\n      app_secret: ${SECRET}" },
  { type: "wecom", credentials: "bot_id: matrix-bot\n      secret: ${SECRET}" },
  { type: "wechat", credentials: "" },
  { type: "wechat", credentials: "", mode: "pairing" },
];
for (const { type, credentials, mode } of CHANNELS) {
  const body = mode
    ? "    mode: pairing\n"
    : `    agent: front\n${credentials ? `    credentials:\n      ${credentials}\n` : ""}`;
  ROWS.push({
    provider: "provider_b",
    kind: "channels",
    form: `${type}${mode ? ", pairing mode (transport only)" : credentials ? " with credentials" : ", QR-only (no credentials)"}`,
    yaml: `${IDENTITY}${env("fe")}agents:\n${agent("front", "auto", `    environment: fe\n${FORWARD}`)}channels:\n  ch:\n    type: ${type}\n${body}`,
  });
}

// Forms beyond the common rows, where a provider offers them.
ROWS.push(
  {
    provider: "provider_c",
    kind: "environments",
    form: "limited networking, remote loosening planned as drift",
    yaml: env(
      "e",
      "      networking:\n        type: limited\n        allowed_hosts: [pypi.org]\n        allow_package_managers: true\n",
    ),
    drift: {
      address: 'provider_c.environments["e"]',
      path: (id) => `/environments/${id}`,
      body: (current) => ({
        config: { ...(current.config as Record<string, unknown>), networking: { type: "unrestricted" } },
      }),
      // Unrestricted is the default and reads back as no policy: the declared policy is what differs.
      lines: [
        "+ config.networking.allow_package_managers: true",
        '+ config.networking.allowed_hosts[0]: "pypi.org"',
        '+ config.networking.type: "limited"',
      ],
    },
  },
  {
    provider: "provider_a",
    kind: "skills",
    form: "official skill by id, on an agent",
    yaml: `agents:\n${agent("pdfer", "qwen-plus", "    skills:\n      - type: official\n        skill_id: pdf\n")}`,
  },
  {
    // provider_a has no outcome event: validate warns (AGENTS1512), apply leaves it out, and the
    // plan after apply must not show it as a change
    provider: "provider_a",
    kind: "deployments",
    form: "a message and an outcome it drops",
    yaml: `${env()}agents:\n${agent("runner", "qwen-plus", "    environment: e\n")}deployments:\n  weekly:\n    agent: runner\n    environment: e\n    initial_events:\n      - type: user.message\n        content: Build the report.\n      - type: user.define_outcome\n        description: A report with three charts\n        rubric: Has three charts.\n`,
  },
  {
    provider: "provider_c",
    kind: "deployments",
    form: "no schedule, a git repository with a token, a message and an outcome",
    yaml: `${env()}agents:\n${agent("runner", "claude-sonnet-4-5", "    environment: e\n")}deployments:\n  once:\n    agent: runner\n    environment: e\n    resources:\n      - type: git_repository\n        url: https://github.com/example/service\n        authorization_token: \${SECRET}\n        checkout:\n          branch: main\n    initial_events:\n      - type: user.message\n        content: Review it.\n      - type: user.define_outcome\n        description: A review report\n        rubric: Lists every changed file.\n`,
  },
  {
    provider: "provider_b",
    kind: "agents",
    form: "managed, with a git repository resource holding a token",
    yaml: `${env()}agents:\n${agent("cloner", "auto", "    environment: e\n    resources:\n      - type: git_repository\n        url: https://git.example.com/ops/infra\n        authorization_token: ${SECRET}\n        checkout:\n          branch: main\n        mount_path: /data/workspace/infra\n")}`,
  },
);

export const rowLabel = (r: Row) => `${r.provider} ${r.kind}: ${r.form}`;

/** Supported (provider, kind) pairs no row covers: a new kind or provider cannot arrive untested. */
export function uncoveredKinds(): string[] {
  const missing: string[] = [];
  for (const provider of Object.keys(KEYS) as Provider[])
    for (const kind of KINDS)
      if (
        PROVIDERS[provider].capabilities.kinds[kind].supported &&
        !ROWS.some((r) => r.provider === provider && r.kind === kind)
      )
        missing.push(`${provider} ${kind}`);
  return missing;
}

/** The variables a row's project runs with (the CLI's environment, or the in-process one). */
export function rowEnv(row: Row, sim: RunningSim): Record<string, string> {
  return {
    AGENTS_STATE_KEY: "matrix-state-key",
    API_KEY: KEYS[row.provider],
    SECRET,
    [`AGENTS_BASE_URL_${row.provider.toUpperCase()}`]: sim.url,
  };
}

/** A new project folder holding the row's agents.yaml and files; the caller removes it. */
export async function writeRowProject(row: Row): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "agents-matrix-"));
  await fs.writeFile(
    join(dir, "agents.yaml"),
    `version: "1"\nproviders:\n${HEADER[row.provider]}${row.yaml}`,
  );
  for (const [path, content] of Object.entries(row.files ?? {})) {
    await fs.mkdir(join(dir, dirname(path)), { recursive: true });
    await fs.writeFile(join(dir, path), content);
  }
  return dir;
}

/** Makes the row's drift edit through the provider's wire API, behind the tool's back. */
export async function editRemotely(
  row: Row,
  sim: RunningSim,
  dir: string,
): Promise<{ status: number; body: string }> {
  const drift = row.drift!;
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")) as {
    resources: Record<string, { id: string }>;
  };
  const url = `${sim.url}${drift.path(state.resources[drift.address]!.id)}`;
  const current = (await (await fetch(url, { headers: wireHeaders(row.provider) })).json()) as Record<
    string,
    unknown
  >;
  const edited = await fetch(url, {
    method: drift.method ?? "POST",
    headers: wireHeaders(row.provider),
    body: JSON.stringify(drift.body(current)),
  });
  return { status: edited.status, body: edited.ok ? "" : await edited.text() };
}
