// Whatever a provider refuses at apply that validate can know, validate says first (issue 23,
// item 2). Each provider's definition lists its refusals (providers/<p>/refusals.ts, through the
// catalog); for every listed refusal this proves both halves on one declaration:
//   1. apply: the provider's handler, driven against its simulator over real sockets with the
//      validator bypassed, refuses it with the listed message;
//   2. validate: the same declaration, as agents.yaml, is reported with the listed rule code.
// It also checks that every refusal has a trigger here and that docs/providers.md shows the
// table this list renders, so neither can drift.
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { DIAGNOSTIC_CODES } from "../../src/config/diagnostics.js";
import { loadConfigText } from "../../src/config/index.js";
import { ALL_ADAPTERS, PROVIDER_NAMES, PROVIDERS, type ProviderName } from "../../src/providers/catalog.js";
import { createHttpClientFactory } from "../../src/providers/http.js";
import { ProviderRuntime } from "../../src/providers/registry.js";
import type { ApplyRefusal, Kind, Spec } from "../../src/providers/types.js";
import { type Harness, makeHarness } from "../providers/harness.js";
import { cfg, load, render, TEST_ENV } from "./helpers.js";
import { refusalTable, UNPROVEN } from "./refusal-table.js";
import { agent, forward, forwardDelivery } from "./rules/rows.js";

interface Trigger {
  /** The declaration as agents.yaml (validate's half). */
  yaml: string;
  /** Local files beside agents.yaml (paths relative to it), for validate and apply alike. */
  files?: Record<string, string>;
  /** Creates what the refused resource depends on, then makes the call apply would make. */
  apply(h: Harness): Promise<unknown>;
}

const A_BLOCK = { api_key: "sim-provider-a-key", workspace_id: "llm-test" };
const B_BLOCK = { api_key: "sim-provider-b-key" };
const userMessage = { type: "user.message", content: "Go." };
const outcome = { type: "user.define_outcome", description: "A report", rubric: "Has charts." };

/** The apply half when the refusal needs nothing created first: the handler's create of `spec`. */
function creates(kind: Kind, name: string, spec: Spec): Trigger["apply"] {
  return (h) => h.handler(kind).create(h.ctx(kind, name), spec);
}

const vault = (credential: string) => `vaults:\n  v:\n    credentials:\n      - ${credential}`;
const envCredential = { name: "t", type: "environment_variable", secret_name: "T", secret_value: "x" };
const runner = { model: "qwen-plus", instructions: "Run." };

/** A provider_a deployment of `runner` in `e` whose one resource is the file `resource`. */
function deploymentWithFile(resource: Record<string, string>): Trigger {
  const flow = Object.entries(resource)
    .map(([key, value]) => `, ${key}: ${value}`)
    .join("");
  return {
    yaml: cfg(
      ["provider_a"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner")}\ndeployments:\n  weekly:\n    agent: runner\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    resources:\n      - {type: file${flow}}`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" } });
      await h.create("agents", "runner", runner);
      return h.handler("deployments").create(h.ctx("deployments", "weekly"), {
        agent: "runner",
        environment: "e",
        initial_events: [userMessage],
        resources: [{ type: "file", ...resource }],
      });
    },
  };
}

/**
 * A row whose apply half is the file itself: `kind.name` as declared in `body` (and first the
 * declarations named in `before`), each with what the adapter's `derive` hook adds, created
 * through the provider's handlers. `${VAR}` references are sent as written.
 */
function declared(provider: ProviderName, body: string, target: string, before: string[] = []): Trigger {
  const yaml = cfg([provider], body);
  return {
    yaml,
    async apply(h) {
      const config = parseYaml(yaml) as Record<string, Record<string, Spec>>;
      const adapter = PROVIDERS[provider].adapter;
      const specOf = (kind: Kind, name: string): Spec => {
        const spec = { ...config[kind]![name]! };
        const derived = adapter.derive?.(config, kind, name);
        return derived ? { ...spec, derived } : spec;
      };
      for (const address of before) {
        const [kind, name] = address.split(".") as [Kind, string];
        await h.create(kind, name, specOf(kind, name));
      }
      const [kind, name] = target.split(".") as [Kind, string];
      return h.handler(kind).create(h.ctx(kind, name), specOf(kind, name));
    },
  };
}

/** A provider_c deployment of agent `runner` in environment `e` (both created first), with `extra` lines. */
function cDeployment(...extra: string[]): Trigger {
  return declared(
    "provider_c",
    `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner")}\ndeployments:\n  d:\n${["agent: runner", "environment: e", ...extra].map((l) => `    ${l}`).join("\n")}`,
    "deployments.d",
    ["environments.e", "agents.runner"],
  );
}
const GO = ["initial_events:", "  - {type: user.message, content: Go.}"];

/** A provider_a deployment with these file resources (its environment and agent created first). */
function aDeployment(resources: string, ...specs: Record<string, unknown>[]): Trigger {
  return {
    yaml: cfg(
      ["provider_a"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner")}\ndeployments:\n  weekly:\n    agent: runner\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    resources:\n      - ${resources}`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" } });
      await h.create("agents", "runner", runner);
      return h.handler("deployments").create(h.ctx("deployments", "weekly"), {
        agent: "runner",
        environment: "e",
        initial_events: [userMessage],
        resources: specs,
      });
    },
  };
}

const TRIGGERS: Record<string, Trigger> = {
  "provider_c.block_without_api_key": {
    yaml: 'version: "1"\nproviders:\n  provider_c: {}\n',
    apply: async () => PROVIDERS.provider_c.adapter.connect({}, createHttpClientFactory()),
  },
  "provider_d.block_without_api_key": {
    yaml: 'version: "1"\nproviders:\n  provider_d: {}\n',
    apply: async () => PROVIDERS.provider_d.adapter.connect({}, createHttpClientFactory()),
  },
  "managed.agent_without_model": declared("provider_c", "agents:\n  a:\n    instructions: Run.", "agents.a"),
  "managed.model_map_without_entry": declared(
    "provider_c",
    "agents:\n  a:\n    model: {provider_b: auto}\n    instructions: Run.",
    "agents.a",
  ),
  "managed.mcp_server_without_url": declared(
    "provider_c",
    `agents:\n${agent("a", "mcp_servers:", "  - name: docs")}`,
    "agents.a",
  ),
  "managed.mcp_server_without_name": declared(
    "provider_c",
    `agents:\n${agent("a", "mcp_servers:", "  - url: https://mcp.example.com")}`,
    "agents.a",
  ),
  "managed.mcp_toolkit_server_undeclared": declared(
    "provider_c",
    `agents:\n${agent("a", "tools:", "  builtin: [bash]", "  mcp:", "    - mcp_server_name: docs")}`,
    "agents.a",
  ),
  "managed.mcp_toolkit_without_server": declared(
    "provider_c",
    `agents:\n${agent("a", "mcp_servers:", "  - {name: docs, url: https://mcp.example.com}", "tools:", "  builtin: [bash]", "  mcp:", "    - {}")}`,
    "agents.a",
  ),
  "managed.skill_reference_without_id": declared(
    "provider_c",
    `agents:\n${agent("a", "skills:", "  - {type: official}")}`,
    "agents.a",
  ),
  "managed.roster_member_shape": declared(
    "provider_c",
    `agents:\n${agent("a", "multiagent:", "  type: coordinator", "  agents:", "    - {}")}`,
    "agents.a",
  ),
  "managed.agent_file_shape": declared(
    "provider_c",
    `agents:\n${agent("a", "files:", "  - {mount_path: x.txt}")}`,
    "agents.a",
  ),
  "managed.environment_type_not_cloud": declared(
    "provider_c",
    "environments:\n  e:\n    config: {type: self_hosted}",
    "environments.e",
  ),
  "managed.setup_script": declared(
    "provider_c",
    "environments:\n  e:\n    config: {type: cloud, setup_script: echo hi}",
    "environments.e",
  ),
  "managed.credential_type": declared("provider_c", vault("{name: t, type: oauth, token: x}"), "vaults.v"),
  "managed.credential_without_name": declared(
    "provider_c",
    vault("{type: environment_variable, secret_name: T, secret_value: x}"),
    "vaults.v",
  ),
  "managed.static_bearer_incomplete": declared(
    "provider_c",
    vault("{name: t, type: static_bearer, mcp_server_url: https://m}"),
    "vaults.v",
  ),
  "managed.environment_variable_incomplete": declared(
    "provider_c",
    vault("{name: t, type: environment_variable, secret_name: T}"),
    "vaults.v",
  ),
  "managed.limited_without_hosts": declared(
    "provider_c",
    vault(
      "{name: t, type: environment_variable, secret_name: T, secret_value: x, networking: {type: limited}}",
    ),
    "vaults.v",
  ),
  "managed.memory_key_dot_segment": declared(
    "provider_c",
    "memory_stores:\n  m:\n    entries:\n      - {key: a/../b.md, content: x}",
    "memory_stores.m",
  ),
  "common.metadata_too_many_keys": declared(
    "provider_c",
    `agents:\n${agent("a", "metadata:", ...Array.from({ length: 15 }, (_, i) => `  k${i}: v`))}`,
    "agents.a",
  ),
  "common.metadata_key_too_long": declared(
    "provider_c",
    `agents:\n${agent("a", "metadata:", `  ${"k".repeat(65)}: v`)}`,
    "agents.a",
  ),
  "common.metadata_value_too_long": declared(
    "provider_c",
    `environments:\n  e:\n    config: {type: cloud}\n    metadata:\n      note: ${"v".repeat(513)}`,
    "environments.e",
  ),
  "managed.memory_key_empty": declared(
    "provider_c",
    "memory_stores:\n  m:\n    entries:\n      - {key: /, content: x}",
    "memory_stores.m",
  ),
  "managed.memory_key_too_deep": declared(
    "provider_c",
    `memory_stores:\n  m:\n    entries:\n      - {key: ${"d/".repeat(21)}x.md, content: x}`,
    "memory_stores.m",
  ),
  "managed.memory_key_too_long": declared(
    "provider_c",
    `memory_stores:\n  m:\n    entries:\n      - {key: ${"x".repeat(1030)}.md, content: x}`,
    "memory_stores.m",
  ),
  "managed.memory_key_twice": declared(
    "provider_c",
    "memory_stores:\n  m:\n    entries:\n      - {key: a.md, content: x}\n      - {key: /a.md, content: y}",
    "memory_stores.m",
  ),
  "managed.memory_entry_without_key": declared(
    "provider_c",
    "memory_stores:\n  m:\n    entries:\n      - {content: x}",
    "memory_stores.m",
  ),
  "managed.skill_without_source": {
    // Refused by plan's read of the skill (its `desired`), before any create.
    yaml: cfg(["provider_c"], "skills:\n  s:\n    description: Reviews."),
    apply: async (h) =>
      h.handler("skills").desired?.({ description: "Reviews." }, { configDir: h.configDir }),
  },
  "provider_c.deployment_without_agent": declared(
    "provider_c",
    `environments:\n  e:\n    config: {type: cloud}\ndeployments:\n  d:\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}`,
    "deployments.d",
    ["environments.e"],
  ),
  "provider_c.deployment_without_environment": declared(
    "provider_c",
    `agents:\n${agent("runner")}\ndeployments:\n  d:\n    agent: runner\n    initial_events:\n      - {type: user.message, content: Go.}`,
    "deployments.d",
    ["agents.runner"],
  ),
  "provider_c.deployment_without_events": cDeployment(),
  "managed.message_event_without_content": cDeployment("initial_events:", "  - {type: user.message}"),
  "managed.initial_event_type": cDeployment("initial_events:", "  - {type: user.shout, content: Go.}"),
  "managed.file_resource_without_source": cDeployment(
    ...GO,
    "resources:",
    "  - {type: file, mount_path: a.txt}",
  ),
  "managed.memory_resource_without_store": cDeployment(...GO, "resources:", "  - {type: memory_store}"),
  "managed.deployment_resource_type": cDeployment(...GO, "resources:", "  - {type: volume, url: x}"),
  "managed.schedule_without_expression": cDeployment(...GO, "schedule: {timezone: UTC}"),
  "managed.mount_path_outside_root": cDeployment(
    ...GO,
    "resources:",
    "  - {type: file, file_id: file_1, mount_path: /etc/a.txt}",
  ),
  "managed.mount_path_escapes_root": cDeployment(
    ...GO,
    "resources:",
    "  - {type: file, file_id: file_1, mount_path: ../a.txt}",
  ),
  "managed.repository_without_url": cDeployment(...GO, "resources:", "  - {type: git_repository}"),
  "provider_b.resource_shared_by_managed_and_forward": declared(
    "provider_b",
    `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("helper", "environment: e")}\n${agent("concierge", ...forwardDelivery, "environment: e")}`,
    "environments.e",
  ),
  "provider_b.block_without_api_key": {
    yaml: 'version: "1"\nproviders:\n  provider_b: {}\n',
    apply: async () => PROVIDERS.provider_b.adapter.connect({}, createHttpClientFactory()),
  },
  "provider_b.tunnel_id_without_prefix": declared(
    "provider_b",
    "tunnels:\n  office:\n    tunnel_id: tun_1",
    "tunnels.office",
  ),
  "provider_b.official_skill_upload": declared(
    "provider_b",
    "skills:\n  s:\n    source: skills/review\n    origin: official",
    "skills.s",
  ),
  "provider_b.forward_memory_without_identity": declared(
    "provider_b",
    `memory_stores:\n  notes: {}\nagents:\n${agent("keeper", ...forward, "memory_stores: [notes]")}`,
    "agents.keeper",
    ["environments.fwd", "memory_stores.notes"],
  ),
  "provider_b.static_bearer_incomplete": declared(
    "provider_b",
    vault("{name: t, type: static_bearer, mcp_server_url: https://m}"),
    "vaults.v",
  ),
  "provider_b.environment_variable_incomplete": declared(
    "provider_b",
    vault("{name: t, type: environment_variable, secret_name: T}"),
    "vaults.v",
  ),
  "provider_b.credential_type": declared("provider_b", vault("{name: t, type: oauth, token: x}"), "vaults.v"),
  "provider_b.file_resource_without_source": declared(
    "provider_b",
    `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner", "environment: e")}\ndeployments:\n  nightly:\n    agent: runner\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    resources:\n      - {type: file, mount_path: a.txt}`,
    "deployments.nightly",
    ["environments.e", "agents.runner"],
  ),
  "provider_b.environment_variable_name": declared(
    "provider_b",
    `agents:\n${agent("vars", ...forward, "environment_variables:", "  1BAD: x")}`,
    "agents.vars",
    ["environments.fwd"],
  ),
  "provider_b.setup_script_too_large": declared(
    "provider_b",
    `environments:\n  e:\n    config:\n      type: cloud\n      setup_script: "${"x".repeat(70_000)}"`,
    "environments.e",
  ),
  "provider_b.self_hosted_with_cloud_fields": declared(
    "provider_b",
    "environments:\n  e:\n    config: {type: self_hosted, packages: {pip: [requests]}}",
    "environments.e",
  ),
  "provider_b.package_manager": declared(
    "provider_b",
    "environments:\n  e:\n    config: {type: cloud, packages: {cargo: [ripgrep]}}",
    "environments.e",
  ),
  "provider_b.managed_identity_without_external_id": declared(
    "provider_b",
    "identities:\n  alice:\n    name: Alice",
    "identities.alice",
  ),
  "provider_b.channel_type": declared(
    "provider_b",
    "channels:\n  c:\n    type: telegram\n    mode: pairing",
    "channels.c",
  ),
  "provider_b.channel_without_credential": declared(
    "provider_b",
    "channels:\n  c:\n    type: dingtalk\n    mode: pairing\n    credentials: {client_id: x}",
    "channels.c",
  ),
  "provider_b.qr_channel_with_credentials": declared(
    "provider_b",
    "channels:\n  c:\n    type: wechat\n    mode: pairing\n    credentials: {token: x}",
    "channels.c",
  ),
  "provider_b.fixed_channel_incomplete": declared(
    "provider_b",
    "channels:\n  c:\n    type: wechat\n    mode: fixed",
    "channels.c",
  ),
  "provider_b.memory_key_not_relative": declared(
    "provider_b",
    "memory_stores:\n  notes:\n    entries:\n      - {key: ../up.md, content: x}",
    "memory_stores.notes",
  ),
  "provider_b.memory_key_twice": declared(
    "provider_b",
    "memory_stores:\n  notes:\n    entries:\n      - {key: a.md, content: x}\n      - {key: /a.md, content: y}",
    "memory_stores.notes",
  ),
  "provider_b.checkout_branch_and_commit": declared(
    "provider_b",
    `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner", "environment: e")}\ndeployments:\n  nightly:\n    agent: runner\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    resources:\n      - {type: git_repository, url: https://g/r, checkout: {branch: main, commit: 0123456789abcdef0123456789abcdef01234567}}`,
    "deployments.nightly",
    ["environments.e", "agents.runner"],
  ),
  "provider_b.checkout_short_commit": declared(
    "provider_b",
    `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner", "environment: e")}\ndeployments:\n  nightly:\n    agent: runner\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    resources:\n      - {type: git_repository, url: https://g/r, checkout: {commit: 0123abc}}`,
    "deployments.nightly",
    ["environments.e", "agents.runner"],
  ),
  "provider_b.permission_twice": declared(
    "provider_b",
    `agents:\n${agent("helper", "tools:", "  builtin: [web_fetch]", "  permissions:", "    web_fetch: allow", "    WebFetch: ask")}`,
    "agents.helper",
  ),
  "provider_b.permission_not_builtin": declared(
    "provider_b",
    `agents:\n${agent("helper", "tools:", "  builtin: [web_fetch]", "  permissions:", "    bash: allow")}`,
    "agents.helper",
  ),
  "provider_b.mcp_server_without_url": declared(
    "provider_b",
    `agents:\n${agent("helper", "mcp_servers:", "  - name: docs")}`,
    "agents.helper",
  ),
  "provider_b.mcp_toolkit_server_undeclared": declared(
    "provider_b",
    `agents:\n${agent("helper", "tools:", "  builtin: [web_fetch]", "  mcp:", "    - mcp_server_name: docs")}`,
    "agents.helper",
  ),
  "common.skill_without_skill_md": {
    files: { "skills/bare/README.md": "# Not a skill\n" },
    yaml: cfg(["provider_a"], "skills:\n  s:\n    source: skills/bare"),
    apply: creates("skills", "s", { source: "skills/bare" }),
  },
  "common.skill_md_without_name": {
    files: { "skills/nameless/SKILL.md": "---\ndescription: Reviews.\n---\nReview the diff.\n" },
    yaml: cfg(["provider_c"], "skills:\n  s:\n    source: skills/nameless"),
    apply: creates("skills", "s", { source: "skills/nameless" }),
  },
  "common.mount_path_empty": aDeployment("{type: file, file_id: file_1, mount_path: ' '}", {
    type: "file",
    file_id: "file_1",
    mount_path: " ",
  }),
  "common.mount_path_outside_root": aDeployment("{type: file, file_id: file_1, mount_path: /etc/a.txt}", {
    type: "file",
    file_id: "file_1",
    mount_path: "/etc/a.txt",
  }),
  "common.mount_path_escapes_root": aDeployment("{type: file, file_id: file_1, mount_path: ../etc/a.txt}", {
    type: "file",
    file_id: "file_1",
    mount_path: "../etc/a.txt",
  }),
  "common.mount_path_twice": aDeployment(
    "{type: file, file_id: file_1, mount_path: a.txt}\n      - {type: file, file_id: file_2, mount_path: /mnt/a.txt}",
    { type: "file", file_id: "file_1", mount_path: "a.txt" },
    { type: "file", file_id: "file_2", mount_path: "/mnt/a.txt" },
  ),
  "engine.kind_not_supported": {
    yaml: cfg(
      ["provider_a"],
      `agents:\n${agent("runner")}\nchannels:\n  c:\n    type: wechat\n    mode: pairing`,
    ),
    apply: async () =>
      new ProviderRuntime({
        adapters: ALL_ADAPTERS,
        blocks: {},
        project: "p",
        configDir: ".",
      }).requireHandler("provider_a", "channels", "provider_a.channels.c"),
  },
  "engine.provider_not_declared": {
    yaml: cfg(["provider_a"], `agents:\n${agent("runner", "provider: provider_c")}`),
    apply: async () =>
      new ProviderRuntime({ adapters: ALL_ADAPTERS, blocks: {}, project: "p", configDir: "." }).session(
        "provider_c",
      ),
  },
  "provider_a.block_without_workspace": {
    yaml: 'version: "1"\nproviders:\n  provider_a:\n    api_key: ${KEY}\nagents:\n  runner:\n    model: m\n    instructions: Run.',
    apply: async () => PROVIDERS.provider_a.adapter.connect({ api_key: "k" }, createHttpClientFactory()),
  },
  "provider_a.workspace_id_not_a_host_label": {
    yaml: 'version: "1"\nproviders:\n  provider_a:\n    api_key: ${KEY}\n    workspace_id: llm-a.evil.example/x\n',
    apply: async () =>
      PROVIDERS.provider_a.adapter.connect(
        { api_key: "k", workspace_id: "llm-a.evil.example/x" },
        createHttpClientFactory(),
      ),
  },
  "provider_a.block_without_api_key": {
    yaml: 'version: "1"\nproviders:\n  provider_a:\n    workspace_id: llm-test\n',
    apply: async () =>
      PROVIDERS.provider_a.adapter.connect({ workspace_id: "llm-test" }, createHttpClientFactory()),
  },
  "provider_a.official_skill_upload": {
    yaml: cfg(["provider_a"], "skills:\n  s:\n    source: skills/review\n    origin: official"),
    apply: creates("skills", "s", { source: "skills/review", origin: "official" }),
  },
  "provider_a.model_map_without_entry": {
    yaml: cfg(
      ["provider_a"],
      "agents:\n  runner:\n    model:\n      provider_c: claude-sonnet-4-5\n    instructions: Run.",
    ),
    apply: creates("agents", "runner", { model: { provider_c: "claude-sonnet-4-5" }, instructions: "Run." }),
  },
  "provider_a.permission_ask": {
    yaml: cfg(
      ["provider_a"],
      `agents:\n${agent("runner", "tools:", "  builtin: [web_search]", "  permissions:", "    web_search: ask")}`,
    ),
    apply: creates("agents", "runner", {
      ...runner,
      tools: { builtin: ["web_search"], permissions: { web_search: "ask" } },
    }),
  },
  "provider_a.mcp_server_by_url": {
    yaml: cfg(
      ["provider_a"],
      `agents:\n${agent("runner", "mcp_servers:", "  - name: docs", "    url: https://mcp.example.com")}`,
    ),
    apply: creates("agents", "runner", {
      ...runner,
      mcp_servers: [{ name: "docs", url: "https://mcp.example.com" }],
    }),
  },
  "provider_a.mcp_toolkit_without_server": {
    yaml: cfg(
      ["provider_a"],
      `agents:\n${agent("runner", "mcp_servers:", "  - name: amap", "tools:", "  mcp:", "    - {}")}`,
    ),
    apply: creates("agents", "runner", { ...runner, mcp_servers: [{ name: "amap" }], tools: { mcp: [{}] } }),
  },
  "provider_a.mcp_toolkit_server_undeclared": {
    yaml: cfg(
      ["provider_a"],
      `agents:\n${agent("runner", "tools:", "  builtin: [web_search]", "  mcp:", "    - mcp_server_name: amap")}`,
    ),
    apply: creates("agents", "runner", {
      ...runner,
      tools: { builtin: ["web_search"], mcp: [{ mcp_server_name: "amap" }] },
    }),
  },
  "provider_a.limited_without_hosts": {
    yaml: cfg(
      ["provider_a"],
      vault(
        "{name: t, type: environment_variable, secret_name: T, secret_value: x, networking: {type: limited}}",
      ),
    ),
    apply: creates("vaults", "v", { credentials: [{ ...envCredential, networking: { type: "limited" } }] }),
  },
  "provider_a.unrestricted_with_hosts": {
    yaml: cfg(
      ["provider_a"],
      vault(
        "{name: t, type: environment_variable, secret_name: T, secret_value: x, networking: {type: unrestricted, allowed_hosts: [a.example.com]}}",
      ),
    ),
    apply: creates("vaults", "v", {
      credentials: [
        { ...envCredential, networking: { type: "unrestricted", allowed_hosts: ["a.example.com"] } },
      ],
    }),
  },
  "provider_a.allowed_hosts_empty": {
    yaml: cfg(
      ["provider_a"],
      vault(
        "{name: t, type: environment_variable, secret_name: T, secret_value: x, networking: {allowed_hosts: []}}",
      ),
    ),
    apply: creates("vaults", "v", {
      credentials: [{ ...envCredential, networking: { allowed_hosts: [] } }],
    }),
  },
  "provider_a.credential_type": {
    yaml: cfg(
      ["provider_a"],
      vault('{name: t, type: static_bearer, mcp_server_url: https://m, access_token: "${TOKEN}"}'),
    ),
    apply: creates("vaults", "v", {
      credentials: [{ name: "t", type: "static_bearer", mcp_server_url: "https://m", access_token: "x" }],
    }),
  },
  "provider_a.credential_without_secret_name": {
    yaml: cfg(["provider_a"], vault("{name: t, type: environment_variable, secret_value: x}")),
    apply: creates("vaults", "v", {
      credentials: [{ name: "t", type: "environment_variable", secret_value: "x" }],
    }),
  },
  "provider_a.credential_without_secret_value": {
    yaml: cfg(["provider_a"], vault("{name: t, type: environment_variable, secret_name: T}")),
    apply: creates("vaults", "v", {
      credentials: [{ name: "t", type: "environment_variable", secret_name: "T" }],
    }),
  },
  "provider_a.file_resource_without_source": deploymentWithFile({ mount_path: "/mnt/data/a.txt" }),
  "provider_a.file_resource_without_mount_path": deploymentWithFile({ file_id: "file_1" }),
  "provider_a.environment_type_not_cloud": {
    yaml: cfg(["provider_a"], "environments:\n  e:\n    config: {type: self_hosted}"),
    apply: creates("environments", "e", { config: { type: "self_hosted" } }),
  },
  "provider_a.setup_script": {
    yaml: cfg(["provider_a"], "environments:\n  e:\n    config: {type: cloud, setup_script: echo hi}"),
    apply: creates("environments", "e", { config: { type: "cloud", setup_script: "echo hi" } }),
  },
  "provider_a.limited_networking": {
    yaml: cfg(
      ["provider_a"],
      "environments:\n  e:\n    config: {type: cloud, networking: {type: limited, allowed_hosts: [a.example.com]}}",
    ),
    apply: creates("environments", "e", {
      config: { type: "cloud", networking: { type: "limited", allowed_hosts: ["a.example.com"] } },
    }),
  },
  "provider_a.deployment_without_environment": {
    yaml: cfg(
      ["provider_a"],
      `agents:\n${agent("runner")}\ndeployments:\n  weekly:\n    agent: runner\n    initial_events:\n      - type: user.message\n        content: Go.`,
    ),
    async apply(h) {
      await h.create("agents", "runner", { model: "qwen-plus", instructions: "Run." });
      return h.handler("deployments").create(h.ctx("deployments", "weekly"), {
        agent: "runner",
        initial_events: [userMessage],
      });
    },
  },
  "provider_a.deployment_with_only_an_outcome": {
    yaml: cfg(
      ["provider_a"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner")}\ndeployments:\n  weekly:\n    agent: runner\n    environment: e\n    initial_events:\n      - type: user.define_outcome\n        description: A report\n        rubric: Has charts.`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" } });
      await h.create("agents", "runner", { model: "qwen-plus", instructions: "Run." });
      return h.handler("deployments").create(h.ctx("deployments", "weekly"), {
        agent: "runner",
        environment: "e",
        initial_events: [outcome],
      });
    },
  },
  "provider_b.forward_template_without_environment": {
    yaml: cfg(["provider_b"], `agents:\n${agent("concierge", ...forwardDelivery)}`),
    apply: (h) =>
      h.handler("agents").create(h.ctx("agents", "concierge"), {
        model: "auto",
        instructions: "Help.",
        delivery: { provider_b: { type: "forward" } },
        derived: { domain: "forward", files: [] },
      }),
  },
  "provider_b.deployment_of_forward_agent": {
    yaml: cfg(
      ["provider_b"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("concierge", ...forwardDelivery, "environment: e")}\ndeployments:\n  nightly:\n    agent: concierge\n    environment: e\n    initial_events:\n      - type: user.message\n        content: Go.`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" }, derived: { domain: "forward" } });
      await h.create("agents", "concierge", {
        model: "auto",
        instructions: "Help.",
        environment: "e",
        delivery: { provider_b: { type: "forward" } },
        derived: { domain: "forward", files: [] },
      });
      return h.handler("deployments").create(h.ctx("deployments", "nightly"), {
        agent: "concierge",
        environment: "e",
        initial_events: [userMessage],
      });
    },
  },
  "provider_b.managed_tool_config_on_managed_delivery": {
    yaml: cfg(
      ["provider_b"],
      `agents:\n${agent("helper", "managed_tool_config:", "  enabled_tools: [list_forward_schedules]")}`,
    ),
    apply: (h) =>
      h.handler("agents").create(h.ctx("agents", "helper"), {
        model: "auto",
        instructions: "Help.",
        managed_tool_config: { enabled_tools: ["list_forward_schedules"] },
        derived: { domain: "managed" },
      }),
  },
  "provider_b.forward_coordinator_with_agent_id": {
    yaml: cfg(
      ["provider_b"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("lead", ...forwardDelivery, "environment: e", "multiagent:", "  type: coordinator", "  agents:", "    - agent_id: tmpl_elsewhere")}`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" }, derived: { domain: "forward" } });
      return h.handler("agents").create(h.ctx("agents", "lead"), {
        model: "auto",
        instructions: "Lead.",
        environment: "e",
        delivery: { provider_b: { type: "forward" } },
        multiagent: { type: "coordinator", agents: [{ agent_id: "tmpl_elsewhere" }] },
        derived: { domain: "forward", files: [] },
      });
    },
  },
  "provider_b.forward_file_empty_path": declared(
    "provider_b",
    `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("concierge", ...forwardDelivery, "environment: e", 'files: [""]')}`,
    "agents.concierge",
    ["environments.e"],
  ),
  "provider_d.deployment_without_agent": declared(
    "provider_d",
    "environments:\n  e:\n    config: {type: cloud}\ndeployments:\n  d:\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}",
    "deployments.d",
  ),
  "provider_d.file_resource_without_source": declared(
    "provider_d",
    `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner")}\ndeployments:\n  d:\n    agent: runner\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    resources:\n      - {type: file, mount_path: data/a.txt}`,
    "deployments.d",
  ),
  "provider_b.model_map_without_entry": {
    yaml: cfg(
      ["provider_b"],
      "agents:\n  helper:\n    model:\n      provider_c: claude-sonnet-4-5\n    instructions: Help.\n    provider: provider_b",
    ),
    apply: (h) =>
      h.handler("agents").create(h.ctx("agents", "helper"), {
        model: { provider_c: "claude-sonnet-4-5" },
        instructions: "Help.",
        derived: { domain: "managed" },
      } as Spec),
  },
};

const BLOCKS: Partial<Record<string, Record<string, string>>> = {
  provider_a: A_BLOCK,
  provider_b: B_BLOCK,
  provider_c: { api_key: "sim-provider-c-key" },
  provider_d: { api_key: "sim-provider-d-key" },
};
const LISTED = PROVIDER_NAMES.flatMap((p) => PROVIDERS[p].applyRefusals.map((r) => [p, r] as const));
const ROWS = LISTED.filter(([, r]) => !UNPROVEN.has(r.id));

/** Writes `files` under `dir` (a new temporary folder when none is given) and returns the folder. */
async function writeFiles(files: Record<string, string>, dir?: string): Promise<string> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), "agents-refusal-")));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const sims = new Map<string, RunningSim>();
beforeAll(async () => {
  for (const p of new Set(ROWS.map(([p]) => p))) sims.set(p, await startSim(p, { quiet: true }));
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe("every apply-time refusal a provider lists is foreseen by validate", () => {
  it("lists at least the refusals issue 23 names, each with a trigger here and a known rule", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(7);
    const ids = LISTED.map(([, r]) => r.id);
    expect(new Set(ids).size, "refusal ids are unique").toBe(ids.length);
    expect(ROWS.map(([, r]) => r.id).sort()).toEqual(Object.keys(TRIGGERS).sort());
    expect(
      [...UNPROVEN].filter((id) => !ids.includes(id)),
      "UNPROVEN names only listed refusals",
    ).toEqual([]);
    for (const [, r] of LISTED) expect(Object.keys(DIAGNOSTIC_CODES)).toContain(r.rule);
  });

  it.each(ROWS.map(([p, r]) => [r.id, p, r] as const))("%s", async (_id, provider, refusal: ApplyRefusal) => {
    const trigger = TRIGGERS[refusal.id]!;
    const sim = sims.get(provider)!;
    const h = await makeHarness(PROVIDERS[provider].adapter, BLOCKS[provider]!, sim.url);
    const dir = trigger.files ? await writeFiles(trigger.files) : undefined;
    if (trigger.files) await writeFiles(trigger.files, h.configDir);
    const refused = await trigger.apply(h).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(refused, "apply must refuse it").toContain(refusal.message);
    const validated = dir
      ? loadConfigText(trigger.yaml, join(dir, "agents.yaml"), { env: TEST_ENV })
      : load(trigger.yaml);
    expect(
      validated.diagnostics.filter((d) => d.code === refusal.rule && d.severity === "error"),
      render(validated),
    ).not.toEqual([]);
  });

  it("docs/providers.md shows this table", () => {
    const docs = readFileSync(
      fileURLToPath(new URL("../../../../docs/providers.md", import.meta.url)),
      "utf8",
    );
    expect(docs).toContain(refusalTable());
  });
});
