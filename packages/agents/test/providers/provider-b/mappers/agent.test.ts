import { describe, expect, it } from "vitest";
import { sha256 } from "../../../../src/providers/common/local-files.js";
import { deriveProviderB } from "../../../../src/providers/provider-b/derive.js";
import {
  agentDesired,
  agentFromWire,
  managedAgentToWire,
  templateToWire,
} from "../../../../src/providers/provider-b/mappers/agent.js";
import { deploymentToWire } from "../../../../src/providers/provider-b/mappers/deployment.js";
import { channelToWire, identityToWire } from "../../../../src/providers/provider-b/mappers/forward.js";
import { planSeeds } from "../../../../src/providers/provider-b/mappers/memory-store.js";
import {
  builtinToolsetToWire,
  toPascalCase,
  toSnakeCase,
} from "../../../../src/providers/provider-b/mappers/tools.js";

const meta = { "agents.project": "p", "agents.resource": 'provider_b.agents["w"]' };

describe("provider_b tools and agents", () => {
  it.each([
    ["web_fetch", "WebFetch"],
    ["bash", "Bash"],
    ["web-search", "WebSearch"],
  ])("PascalCase %s → %s and back", (snake, pascal) => {
    expect(toPascalCase(snake)).toBe(pascal);
    expect(toSnakeCase(pascal)).toBe(snake.replace("-", "_"));
  });
  it("permissions: default, override matched case/separator-insensitively", () => {
    expect(
      builtinToolsetToWire(
        { builtin: ["bash", "web_fetch"], default_permission: "ask", permissions: { WebFetch: "allow" } },
        "a",
      ),
    ).toEqual({
      type: "agent_toolset_20260401",
      configs: [
        { name: "Bash", enabled: true, permission_policy: { type: "always_ask" } },
        { name: "WebFetch", enabled: true, permission_policy: { type: "always_allow" } },
      ],
    });
  });
  it.each([
    [
      "duplicate normalized names are rejected",
      { builtin: ["web_fetch"], permissions: { web_fetch: "ask" as const, WebFetch: "allow" as const } },
      /twice/,
    ],
    [
      "unknown names are rejected",
      { builtin: ["bash"], permissions: { read: "ask" as const } },
      /not in tools.builtin/,
    ],
  ])("%s", (_rule, tools, error) => {
    expect(() => builtinToolsetToWire(tools, "a")).toThrow(error);
  });
  const common = { name: "w", metadata: meta, skills: [], update: false };
  it.each([
    [
      "managed roster carries only ids",
      { roster: ["agent_1"] },
      { type: "coordinator", agents: [{ type: "agent", id: "agent_1" }] },
    ],
    ["removing multiagent on update sends explicit null", { update: true }, null],
    ["create without multiagent sends nothing", {}, undefined],
  ])("managed multi-agent: %s", (_rule, patch, expected) => {
    expect(
      managedAgentToWire({ model: "auto", instructions: "i" }, { ...common, ...patch }).multiagent,
    ).toEqual(expected);
  });
  it("managed_tool_config on managed delivery is rejected", () => {
    expect(() =>
      managedAgentToWire(
        { model: "auto", instructions: "i", managed_tool_config: { enabled_tools: [] } },
        common,
      ),
    ).toThrow(/Forward/);
  });
  it("URL MCP servers only; toolset only when tools.mcp names the server", () => {
    const body = managedAgentToWire(
      {
        model: "auto",
        instructions: "i",
        mcp_servers: [{ name: "forge", url: "https://f/mcp" }],
        tools: {
          builtin: ["read"],
          mcp: [{ mcp_server_name: "forge", configs: [{ name: "list", enabled: true }] }],
        },
      },
      common,
    );
    expect(body.mcp_servers).toEqual([{ name: "forge", type: "http", url: "https://f/mcp" }]);
    expect((body.tools as unknown[])[1]).toEqual({
      type: "mcp_toolset",
      mcp_server_name: "forge",
      configs: [{ name: "list", enabled: true }],
    });
    expect(() =>
      managedAgentToWire(
        { model: "auto", instructions: "i", mcp_servers: [{ name: "x", type: "official" }] },
        common,
      ),
    ).toThrow(/url/);
  });
  const template = { ...common, environmentId: "env_1", vaultIds: [], fileIds: ["file_1"] };
  it("template: files map, env vars as defaults, skills enabled, description empty", () => {
    const body = templateToWire(
      { model: "auto", instructions: "i", environment_variables: { A: "1" } },
      { ...template, skills: [{ type: "custom", skill_id: "s1" }] },
    );
    expect(body).toMatchObject({
      description: "",
      environment_id: "env_1",
      files: { file_1: { enabled: true } },
      environment_variables: { A: "1" },
      skills: [{ type: "custom", skill_id: "s1", enabled: true }],
      mcp_servers: [],
    });
    expect(body).not.toHaveProperty("managed_tool_config");
  });
  it.each([
    ["declared: sent as the Template's defaults", { A: "1" }, false, { A: "1" }],
    ["dropped on update: an empty map clears the old defaults", undefined, true, {}],
    ["absent on create: nothing is sent", undefined, false, undefined],
  ])("environment_variables: %s", (_rule, vars, update, expected) => {
    const body = templateToWire(
      { model: "auto", instructions: "i", environment_variables: vars },
      { ...template, update },
    );
    expect(body.environment_variables).toEqual(expected);
  });
  it.each([
    [
      "enabled_tools replaces the whole set",
      { enabled_tools: ["create_forward_schedule"] },
      { enabled_tools: ["create_forward_schedule"] },
    ],
    ["an empty array turns all managed tools off", { enabled_tools: [] }, { enabled_tools: [] }],
    ["omitted sends nothing", undefined, undefined],
  ])("managed_tool_config: %s", (_rule, mtc, expected) => {
    expect(
      templateToWire({ model: "auto", instructions: "i", managed_tool_config: mtc }, template)
        .managed_tool_config,
    ).toEqual(expected);
  });
  it.each([
    [
      "forward roster uses template ids",
      { roster: ["tmpl_1"] },
      { type: "coordinator", agents: [{ type: "template", template_id: "tmpl_1" }] },
    ],
    ["removing multiagent on update sends explicit null", { update: true }, null],
  ])("forward multi-agent: %s", (_rule, patch, expected) => {
    expect(
      templateToWire({ model: "auto", instructions: "i" }, { ...template, ...patch }).multiagent,
    ).toEqual(expected);
  });
  it("an unchanged forward agent reads back as desired (no drift)", () => {
    const decl = {
      model: "auto",
      instructions: "i",
      tools: { builtin: ["bash"], default_permission: "ask" as const },
      environment_variables: { A: "1" },
      managed_tool_config: { enabled_tools: ["b", "a"] },
      delivery: { provider_b: { type: "forward" as const } },
    };
    expect(agentFromWire(templateToWire(decl, template), "w", true)).toEqual(agentDesired(decl));
  });
});

describe("provider_b memory store seeds (managed seeds)", () => {
  const remote = [
    { id: "mem_1", path: "notes/a.md", content_sha256: sha256("old") },
    { id: "mem_2", path: "notes/b.md", content_sha256: sha256("same") },
    { id: "mem_3", path: "agent/wrote.md", content_sha256: sha256("theirs") },
  ];
  it("creates missing paths, updates changed ones with a precondition, keeps agent-written memories", () => {
    expect(
      planSeeds(
        [
          { key: "/notes/a.md", content: "new" },
          { key: "notes/b.md", content: "same" },
          { key: "notes/c.md", content: "c" },
        ],
        remote,
      ),
    ).toEqual([
      { action: "update", id: "mem_1", path: "notes/a.md", content: "new", expectedSha256: sha256("old") },
      { action: "create", path: "notes/c.md", content: "c" },
    ]);
  });
  it.each([
    [
      "duplicate keys",
      [
        { key: "a", content: "1" },
        { key: "/a", content: "2" },
      ],
      /twice/,
    ],
    ["path escaping the store", [{ key: "../x", content: "1" }], /relative path/],
  ])("rejects %s", (_rule, entries, error) => {
    expect(() => planSeeds(entries, [])).toThrow(error);
  });
});

describe("provider_b deployments", () => {
  const input = {
    name: "d",
    agentId: "agent_1",
    vaultIds: [],
    resourceIds: [],
    memoryStoreIds: [],
    metadata: meta,
    update: false,
    warn: () => {},
  };
  it("drops the tunnel with a warning", () => {
    const warnings: string[] = [];
    const body = deploymentToWire(
      { agent: "w", tunnel: "t", initial_events: [{ type: "user.message", content: "go" }] },
      { ...input, warn: (m) => warnings.push(m) },
    );
    expect(body).not.toHaveProperty("tunnel_id");
    expect(warnings.join()).toMatch(/no tunnel/);
  });
  it("pinned agent version uses the object form; stores are appended once", () => {
    const body = deploymentToWire(
      {
        agent: "w",
        agent_version: 3,
        resources: [{ type: "memory_store", memory_store: "m", access: "read_only" }],
        initial_events: [{ type: "user.message", content: "go" }],
      },
      { ...input, resourceIds: ["memstore_1"], memoryStoreIds: ["memstore_1", "memstore_2"] },
    );
    expect(body.agent).toEqual({ id: "agent_1", type: "agent", version: 3 });
    expect(body.resources).toEqual([
      { type: "memory_store", memory_store_id: "memstore_1", access: "read_only" },
      { type: "memory_store", memory_store_id: "memstore_2" },
    ]);
  });
  it("update sends full lists and clears; removing a schedule is refused", () => {
    const decl = { agent: "w", initial_events: [{ type: "user.message" as const, content: "go" }] };
    expect(deploymentToWire(decl, { ...input, update: true })).toMatchObject({
      vault_ids: [],
      resources: [],
      description: "",
      environment_variables: null,
    });
    expect(() => deploymentToWire(decl, { ...input, update: true, remoteHasSchedule: true })).toThrow(
      /cannot remove a schedule/,
    );
  });
});

describe("provider_b identities and channels", () => {
  it("identity: enabled defaults to true, removed metadata keys become empty strings", () => {
    expect(
      identityToWire({ external_id: "u1", metadata: { a: "1" } }, "alice", {
        a: "0",
        b: "2",
        "agents.project": "p",
      }),
    ).toEqual({
      external_id: "u1",
      name: "alice",
      enabled: true,
      metadata: { a: "1", b: "" },
    });
  });
  const creds = { client_id: "id", client_secret: "sec" };
  it.each([
    [
      "fixed mode binds identity and template",
      { type: "dingtalk", credentials: creds },
      { identityId: "idn_1", templateId: "tmpl_1", update: false },
      { channel_type: "dingtalk", identity_id: "idn_1", template_id: "tmpl_1" },
    ],
    [
      "pairing mode is transport only",
      { type: "dingtalk", mode: "pairing" as const, credentials: creds },
      { update: false },
      { channel_type: "dingtalk", identity_resolution: { mode: "pairing" } },
    ],
  ])("%s", (_rule, decl, input, expected) => {
    const body = channelToWire(decl, { name: "c", ...input });
    expect(body).toMatchObject(expected);
    expect(body.channel_config).toEqual({
      credentials: creds,
      response_options: { include_tool_calls: false, include_thinking: false },
    });
  });
  it("update omits channel_type and identity_resolution", () => {
    const body = channelToWire(
      { type: "dingtalk", mode: "pairing", credentials: creds },
      { name: "c", update: true },
    );
    expect(body).not.toHaveProperty("channel_type");
    expect(body).not.toHaveProperty("identity_resolution");
  });
  it.each([
    ["missing credential key", { type: "feishu", credentials: { app_id: "x" } }, /app_secret/],
    [
      "QR-only type with credentials",
      { type: "wechat", mode: "pairing" as const, credentials: { a: "b" } },
      /QR-only/,
    ],
    ["fixed mode without a template", { type: "wechat" }, /fixed mode/],
  ])("rejects %s", (_rule, decl, error) => {
    expect(() => channelToWire(decl, { name: "c", update: false })).toThrow(error);
  });
});

describe("provider_b derive: Forward domains (spec: Forward environments and resources)", () => {
  const config = {
    defaults: { identity: "alice" },
    agents: {
      fwd: {
        environment: "fenv",
        vault: "fv",
        skills: ["s"],
        memory_stores: ["m"],
        files: ["guide.md"],
        delivery: { provider_b: { type: "forward" } },
      },
      mgd: { environment: "menv", skills: ["s"] },
    },
  };
  it.each([
    ["environment of a Forward agent → forward", "environments", "fenv", { domain: "forward" }],
    ["environment of a Managed agent → managed", "environments", "menv", { domain: "managed" }],
    ["vault of a Forward agent → forward", "vaults", "fv", { domain: "forward" }],
    [
      "explicit memory store of a Forward agent → forward, with defaults.identity",
      "memory_stores",
      "m",
      { domain: "forward", identity: "alice" },
    ],
  ])("%s", (_rule, kind, name, expected) => {
    expect(deriveProviderB(config, kind, name)).toEqual(expected);
  });
  it("a skill shared by Managed and Forward agents is flagged (rule 3)", () => {
    expect(deriveProviderB(config, "skills", "s")?.domain_conflict).toMatch(/declare one per API domain/);
  });
  it("names the users of a shared resource in declaration order, each agent once", () => {
    const shared = {
      agents: {
        b: { environment: "e", delivery: { provider_b: { type: "forward" } } },
        a: { environment: "e", skills: ["k", "k"] },
        c: { environment: "e", provider: "provider_a" },
        d: { skills: ["k"], delivery: { provider_b: { type: "forward" } } },
      },
    };
    expect(deriveProviderB(shared, "environments", "e")?.domain_conflict).toBe(
      'environments "e" is used by Managed agent(s) a and Forward agent(s) b; declare one per API domain',
    );
    expect(deriveProviderB(shared, "skills", "k")?.domain_conflict).toBe(
      'skills "k" is used by Managed agent(s) a and Forward agent(s) d; declare one per API domain',
    );
  });
  it("reads each agent's declaration a bounded number of times, however many resources it derives for", () => {
    // 200 environments, one per agent: deriving all of them must not look through every agent
    // for each one (a 5,000-resource plan spent seconds there).
    let reads = 0;
    const agents: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i < 200; i++)
      agents[`a${i}`] = new Proxy(
        { environment: `e${i}` },
        {
          get(target, key) {
            if (key === "environment") reads++;
            return Reflect.get(target, key);
          },
        },
      );
    const big = { agents };
    for (let i = 0; i < 200; i++)
      expect(deriveProviderB(big, "environments", `e${i}`)).toEqual({ domain: "managed" });
    // A few reads per agent; looking through every agent per environment read it 80,000 times.
    expect(reads).toBeLessThanOrEqual(4 * 200);
  });
  it("a Forward agent gets the default identity and its inherited Files", () => {
    expect(deriveProviderB(config, "agents", "fwd")).toEqual({
      domain: "forward",
      identity: "alice",
      files: [{ name: "guide.md", source: "guide.md" }],
    });
  });
});
