import { describe, expect, it } from "vitest";
import { parseProviderAError, providerABaseUrl } from "../../../src/providers/provider-a/client.js";
import { createDeploymentHandler } from "../../../src/providers/provider-a/handlers/deployments.js";
import { DEFAULT_PROVIDER_A_OPTIONS } from "../../../src/providers/provider-a/handlers/options.js";
import { agentDesired, agentFromWire, agentToWire } from "../../../src/providers/provider-a/mappers/agent.js";
import { deploymentToWire } from "../../../src/providers/provider-a/mappers/deployment.js";
import {
  environmentFromWire,
  environmentToWire,
} from "../../../src/providers/provider-a/mappers/environment.js";

const meta = { "agents.project": "p", "agents.resource": 'provider_a.agents["w"]' };

describe("provider_a transport", () => {
  it.each([
    [
      "workspace id → regional AgentStudio URL",
      { workspace_id: "llm-abc" },
      "https://llm-abc.cn-beijing.maas.aliyuncs.com/api/v1/agentstudio",
    ],
    [
      "base_url is used verbatim (no suffix)",
      { workspace_id: "llm-abc", base_url: "http://127.0.0.1:9/x" },
      "http://127.0.0.1:9/x",
    ],
  ])("%s", (_rule, block, url) => {
    expect(providerABaseUrl(block)).toBe(url);
  });
  it("rejects a workspace id that is not a host label", () => {
    expect(() => providerABaseUrl({ workspace_id: "evil.com/#" })).toThrow(/host label/);
  });
  it.each([
    ["HTTP 409", 409, { type: "error", error: { code: "conflict", message: "x" } }, true],
    ["code 11300026 in the body", 400, { type: "error", error: { code: "11300026", message: "dup" } }, true],
    ["Chinese 已存在", 400, { error: "名称已存在" }, true],
    ["English already exists (any case)", 500, "Agent Already Exists", true],
    [
      "other errors are not conflicts",
      400,
      { type: "error", error: { code: "invalid", message: "bad" } },
      false,
    ],
  ])("conflict detection: %s", (_rule, status, body, conflict) => {
    expect(parseProviderAError(status, body).conflict).toBe(conflict);
  });
  it("reads code and message from the error envelope", () => {
    expect(
      parseProviderAError(404, { type: "error", error: { code: "not_found_error", message: "no" } }),
    ).toMatchObject({
      code: "not_found_error",
      message: "no",
    });
  });
});

describe("provider_a environment mapping (docs/wire/provider-a.md §3.1)", () => {
  it("always sends cloud, unrestricted, organization scope, ownership metadata", () => {
    expect(
      environmentToWire({ config: { type: "cloud", packages: { pip: ["requests"], npm: [] } } }, "dev", meta),
    ).toEqual({
      name: "dev",
      scope: "organization",
      config: { type: "cloud", networking: { type: "unrestricted" }, packages: { pip: ["requests"] } },
      metadata: meta,
    });
  });
  it.each([
    ["self_hosted is rejected", { config: { type: "self_hosted" } }, /only config.type cloud/],
    ["setup_script is rejected", { config: { type: "cloud", setup_script: "echo" } }, /setup_script/],
    [
      "limited networking is rejected, not widened",
      { config: { type: "cloud", networking: { type: "limited" } } },
      /unrestricted/,
    ],
  ])("%s", (_rule, decl, error) => {
    expect(() => environmentToWire(decl, "dev", meta)).toThrow(error);
  });
  it("reads back without agents.* keys and without a name equal to the key", () => {
    expect(
      environmentFromWire(
        {
          name: "dev",
          config: { type: "cloud", networking: { type: "unrestricted" } },
          metadata: { ...meta, team: "x" },
        },
        "dev",
      ),
    ).toEqual({ config: { type: "cloud", networking: { type: "unrestricted" } }, metadata: { team: "x" } });
  });
});

describe("provider_a agent mapping (docs/wire/provider-a.md §3.5)", () => {
  const input = { name: "w", metadata: meta, skills: [], clearRoster: false, warn: () => {} };
  it("maps model to an object, instructions to system, default toolkit when no tools", () => {
    expect(
      agentToWire({ model: { provider_a: "qwen-max", provider_b: "auto" }, instructions: "hi" }, input),
    ).toEqual({
      name: "w",
      model: { id: "qwen-max" },
      system: "hi",
      tools: [{ type: "builtin_toolkit", default_config: { enabled: true }, configs: [] }],
      metadata: meta,
    });
  });
  it("enables only the listed builtins, drops unknown ones with a warning", () => {
    const warnings: string[] = [];
    const body = agentToWire(
      { model: "m", instructions: "i", tools: { builtin: ["Bash", "read", "web_fetch"] } },
      { ...input, warn: (m) => warnings.push(m) },
    );
    expect(body.tools).toEqual([
      {
        type: "builtin_toolkit",
        default_config: { enabled: false },
        configs: [
          { name: "bash", enabled: true },
          { name: "read", enabled: true },
        ],
      },
    ]);
    expect(warnings.join()).toMatch(/web_fetch/);
  });
  it("rejects permission ask", () => {
    expect(() =>
      agentToWire(
        { model: "m", instructions: "i", tools: { builtin: ["bash"], permissions: { bash: "ask" } } },
        input,
      ),
    ).toThrow(/ask/);
  });
  it("sends official MCP servers by name plus their toolkit", () => {
    const body = agentToWire(
      {
        model: "m",
        instructions: "i",
        mcp_servers: [{ name: "amap", type: "official" }],
        tools: {
          builtin: ["bash"],
          mcp: [{ type: "mcp_toolkit", mcpServerName: "amap", configs: [{ name: "geo", enabled: true }] }],
        },
      },
      input,
    );
    expect(body.mcp_servers).toEqual([{ type: "official", name: "amap" }]);
    expect((body.tools as unknown[])[1]).toEqual({
      type: "mcp_toolkit",
      mcp_server_name: "amap",
      default_config: { enabled: false },
      configs: [{ name: "geo", enabled: true }],
    });
  });
  it("rejects URL MCP servers", () => {
    expect(() =>
      agentToWire({ model: "m", instructions: "i", mcp_servers: [{ name: "x", url: "https://x" }] }, input),
    ).toThrow(/official/);
  });
  it("sends resolved skills with their mandatory version", () => {
    const body = agentToWire(
      { model: "m", instructions: "i" },
      { ...input, skills: [{ type: "customer", skill_id: "skill-1", version: "2" }] },
    );
    expect(body.skills).toEqual([{ type: "customer", skill_id: "skill-1", version: "2" }]);
  });
  it.each([
    [
      "roster carries only member ids",
      { roster: ["agent_1", "agent_2"], clearRoster: false },
      {
        type: "coordinator",
        agents: [
          { type: "agent", id: "agent_1" },
          { type: "agent", id: "agent_2" },
        ],
      },
    ],
    [
      "removing multiagent on update sends an empty roster",
      { clearRoster: true },
      { type: "coordinator", agents: [] },
    ],
    ["create without multiagent sends nothing", { clearRoster: false }, undefined],
  ])("multi-agent: %s", (_rule, patch, expected) => {
    expect(agentToWire({ model: "m", instructions: "i" }, { ...input, ...patch }).multiagent).toEqual(
      expected,
    );
  });
  it("reads back into the desired shape (no drift for an unchanged agent)", () => {
    const decl = {
      model: "m",
      instructions: "i",
      tools: { builtin: ["read", "bash"] },
      metadata: { team: "x" },
    };
    const wire = agentToWire(decl, { ...input, metadata: { ...meta, team: "x" } });
    expect(agentFromWire(wire, "w")).toEqual(agentDesired(decl));
  });
});

describe("provider_a deployment mapping (docs/wire/provider-a.md §3.6)", () => {
  const input = {
    name: "d",
    agentId: "agent_1",
    environmentId: "env_1",
    vaultIds: [],
    fileIds: [],
    metadata: meta,
    update: false,
    warn: () => {},
  };
  it("maps messages to user role, drops define_outcome with a warning, requires a message", () => {
    const warnings: string[] = [];
    const body = deploymentToWire(
      {
        agent: "w",
        initial_events: [
          { type: "system.message", content: "be brief" },
          { type: "user.define_outcome", description: "x" },
        ],
        schedule: { expression: "0 9 * * *", timezone: "Asia/Shanghai" },
      },
      { ...input, warn: (m) => warnings.push(m) },
    );
    expect(body).toMatchObject({
      agent: { id: "agent_1" },
      environment_id: "env_1",
      initial_events: [{ role: "user", type: "message", content: [{ type: "text", text: "be brief" }] }],
      schedule: { type: "cron", expression: "0 9 * * *", timezone: "Asia/Shanghai" },
    });
    expect(warnings.join()).toMatch(/define_outcome/);
    expect(() =>
      deploymentToWire({ agent: "w", initial_events: [{ type: "user.define_outcome" }] }, input),
    ).toThrow(/at least one/);
  });
  it("plans without the define_outcome events it drops (the plan shows what apply sends)", async () => {
    const desired = await createDeploymentHandler(DEFAULT_PROVIDER_A_OPTIONS).desired!(
      {
        agent: "w",
        initial_events: [
          { type: "user.message", content: "go" },
          { type: "user.define_outcome", description: "x" },
        ],
      },
      { configDir: "." },
    );
    expect(desired.initial_events).toEqual([{ type: "user.message", content: "go" }]);
  });
  it("update clears description and schedule and always sends vault_ids and resources", () => {
    const body = deploymentToWire(
      { agent: "w", initial_events: [{ type: "user.message", content: "go" }] },
      { ...input, update: true },
    );
    expect(body).toMatchObject({ description: "", vault_ids: [], resources: [], schedule: null });
  });
  it("keeps only file resources under /mnt and rejects a foreign absolute path", () => {
    const decl = {
      agent: "w",
      initial_events: [{ type: "user.message" as const, content: "go" }],
      resources: [
        { type: "file" as const, file_id: "file_1", mount_path: "data/in.csv" },
        { type: "git_repository" as const },
      ],
    };
    const warnings: string[] = [];
    const body = deploymentToWire(decl, {
      ...input,
      fileIds: ["file_1", undefined],
      warn: (m) => warnings.push(m),
    });
    expect(body.resources).toEqual([{ type: "file", file_id: "file_1", mount_path: "/mnt/data/in.csv" }]);
    expect(warnings.join()).toMatch(/git_repository/);
    expect(() =>
      deploymentToWire(
        { ...decl, resources: [{ type: "file", file_id: "f", mount_path: "/data/x" }] },
        { ...input, fileIds: ["f"] },
      ),
    ).toThrow(/not under \/mnt/);
  });
});
