// One case per row of the agent tables in docs/wire/provider-c.md §3.5 and docs/wire/provider-d.md §3.5.
import { describe, expect, it } from "vitest";
import { sameValue } from "../../../src/plan/diff.js";
import { withOwnership } from "../../../src/providers/common/ownership.js";
import {
  agentFromWire,
  agentReverseRefs,
  agentToWire,
  canonicalAgent,
  sessionDefaults,
} from "../../../src/providers/managed-dialect/agent.js";
import { METADATA_LIMITS } from "../../../src/providers/managed-dialect/ownership.js";
import type { Json } from "../../../src/providers/managed-dialect/spec.js";
import { providerCProfile } from "../../../src/providers/provider-c/profile.js";
import { providerDProfile } from "../../../src/providers/provider-d/profile.js";
import { fakeResolver, OWNER, OWNER_KEYS } from "./fixtures.js";

const base = { model: "m-1", instructions: "Be brief." };
const refs = fakeResolver({ "skills/official-one": { origin: "official" } });

function wireC(spec: Json): Json {
  return agentToWire(
    spec,
    "writer",
    withOwnership(undefined, OWNER, METADATA_LIMITS),
    providerCProfile.agent,
    refs,
  );
}

const toolsetC = "agent_toolset_20260401";
const toolsetD = "agent_toolset_20260701";

describe("provider_c agent mapping (docs/wire/provider-c.md §3.5)", () => {
  const rows: Array<{ row: string; spec: Json; field: string; wire: unknown }> = [
    { row: "key / name → name", spec: base, field: "name", wire: "writer" },
    { row: "model string → model id", spec: base, field: "model", wire: "m-1" },
    {
      row: "per-provider model map → this provider's id",
      spec: { ...base, model: { provider_c: "m-c", provider_d: "m-d" } },
      field: "model",
      wire: "m-c",
    },
    { row: "instructions → system", spec: base, field: "system", wire: "Be brief." },
    { row: "no tools → all-on toolset", spec: base, field: "tools", wire: [{ type: toolsetC }] },
    {
      row: "tools.builtin + permissions → toolset configs with permission_policy",
      spec: {
        ...base,
        tools: { builtin: ["bash", "Web-Search", "download_file"], permissions: { bash: "ask" } },
      },
      field: "tools",
      wire: [
        {
          type: toolsetC,
          default_config: { enabled: false },
          configs: [
            { name: "bash", enabled: true, permission_policy: { type: "always_ask" } },
            { name: "web_search", enabled: true, permission_policy: { type: "always_allow" } },
          ],
        },
      ],
    },
    {
      row: "default_permission ask applies to every builtin without an override",
      spec: {
        ...base,
        tools: { builtin: ["read", "grep"], default_permission: "ask", permissions: { READ: "allow" } },
      },
      field: "tools",
      wire: [
        {
          type: toolsetC,
          default_config: { enabled: false },
          configs: [
            { name: "grep", enabled: true, permission_policy: { type: "always_ask" } },
            { name: "read", enabled: true, permission_policy: { type: "always_allow" } },
          ],
        },
      ],
    },
    {
      row: "mcp_servers → url servers",
      spec: { ...base, mcp_servers: [{ name: "forge", url: "https://mcp.example/mcp" }] },
      field: "mcp_servers",
      wire: [{ name: "forge", type: "url", url: "https://mcp.example/mcp" }],
    },
    {
      row: "mcp_servers → one mcp_toolset entry per server; tools.mcp adds its configs",
      spec: {
        ...base,
        mcp_servers: [
          { name: "forge", url: "https://mcp.example/mcp" },
          { name: "docs", url: "https://docs.example/mcp" },
        ],
        tools: {
          builtin: [],
          mcp: [
            {
              type: "mcp_toolkit",
              mcp_server_name: "forge",
              default_config: { enabled: false },
              configs: [{ name: "list_issues", enabled: true }],
            },
          ],
        },
      },
      field: "tools",
      wire: [
        { type: toolsetC, default_config: { enabled: false }, configs: [] },
        {
          type: "mcp_toolset",
          mcp_server_name: "forge",
          default_config: { enabled: false },
          configs: [{ name: "list_issues", enabled: true }],
        },
        { type: "mcp_toolset", mcp_server_name: "docs" },
      ],
    },
    {
      row: "skills: logical name → custom skill id; official origin → anthropic; reference objects",
      spec: {
        ...base,
        skills: [
          "mine",
          "official-one",
          { type: "official", skill_id: "pdf" },
          { type: "custom", skill_id: "s1", version: "3" },
        ],
      },
      field: "skills",
      wire: [
        { type: "custom", skill_id: "id-skills-mine" },
        { type: "anthropic", skill_id: "id-skills-official-one" },
        { type: "anthropic", skill_id: "pdf" },
        { type: "custom", skill_id: "s1", version: "3" },
      ],
    },
    {
      row: "multiagent → coordinator roster of bare ids ({agent_id} passes through)",
      spec: { ...base, multiagent: { type: "coordinator", agents: ["helper", { agent_id: "agent_ext" }] } },
      field: "multiagent",
      wire: { type: "coordinator", agents: ["id-agents-helper", "agent_ext"] },
    },
    {
      row: "no multiagent → null (clears the roster on update)",
      spec: base,
      field: "multiagent",
      wire: null,
    },
    {
      row: "metadata + ownership keys (user keys win)",
      spec: { ...base, metadata: { team: "a", "agents.project": "mine" } },
      field: "metadata",
      wire: { ...OWNER_KEYS, team: "a", "agents.project": "mine" },
    },
  ];
  it.each(rows)("$row", ({ spec, field, wire }) => {
    const metadata = withOwnership(
      spec.metadata as Record<string, string> | undefined,
      OWNER,
      METADATA_LIMITS,
    );
    const body = agentToWire(spec, "writer", metadata, providerCProfile.agent, refs);
    expect(body[field]).toEqual(wire);
  });

  it("rejects an MCP server without url, naming the fix", () => {
    expect(() => wireC({ ...base, mcp_servers: [{ name: "official" }] })).toThrow(/add url/);
  });
  it("rejects a toolkit for a server that is not declared with a url", () => {
    expect(() => wireC({ ...base, tools: { builtin: [], mcp: [{ mcp_server_name: "x" }] } })).toThrow(
      /declare it/,
    );
  });
  it("rejects a model map without this provider", () => {
    expect(() => wireC({ ...base, model: { provider_d: "m" } })).toThrow(/provider_c/);
  });
});

describe("provider_d agent mapping (differences, docs/wire/provider-d.md §2 and §3.5)", () => {
  const rows: Array<{ row: string; spec: Json; field: string; wire: unknown }> = [
    { row: "key / name → name", spec: base, field: "name", wire: "writer" },
    { row: "model is always {id}", spec: base, field: "model", wire: { id: "m-1" } },
    {
      row: "model map → {id} of provider_d's entry",
      spec: { ...base, model: { provider_c: "m-c", provider_d: "m-d" } },
      field: "model",
      wire: { id: "m-d" },
    },
    { row: "instructions → system", spec: base, field: "system", wire: "Be brief." },
    {
      row: "tools.builtin + permissions → 20260701 toolset configs",
      spec: { ...base, tools: { builtin: ["grep"], default_permission: "ask" } },
      field: "tools",
      wire: [
        {
          type: toolsetD,
          default_config: { enabled: false },
          configs: [{ name: "grep", enabled: true, permission_policy: { type: "always_ask" } }],
        },
      ],
    },
    {
      row: "mcp_servers → url servers + one mcp_toolset each",
      spec: { ...base, mcp_servers: [{ name: "forge", url: "https://mcp.example/mcp" }] },
      field: "tools",
      wire: [{ type: toolsetD }, { type: "mcp_toolset", mcp_server_name: "forge" }],
    },
    {
      row: "metadata + ownership keys",
      spec: { ...base, metadata: { team: "a" } },
      field: "metadata",
      wire: { ...OWNER_KEYS, team: "a" },
    },
    { row: "no tools → all-on 20260701 toolset", spec: base, field: "tools", wire: [{ type: toolsetD }] },
    {
      row: "roster entries are {type:'agent', id}",
      spec: { ...base, multiagent: { type: "coordinator", agents: ["helper", { agent_id: "x-1" }] } },
      field: "multiagent",
      wire: {
        type: "coordinator",
        agents: [
          { type: "agent", id: "id-agents-helper" },
          { type: "agent", id: "x-1" },
        ],
      },
    },
    {
      row: "skill type forwarded as declared (official stays official)",
      spec: { ...base, skills: [{ type: "official", skill_id: "pdf" }] },
      field: "skills",
      wire: [{ type: "official", skill_id: "pdf" }],
    },
  ];
  it.each(rows)("$row", ({ spec, field, wire }) => {
    const metadata = withOwnership(
      spec.metadata as Record<string, string> | undefined,
      OWNER,
      METADATA_LIMITS,
    );
    expect(agentToWire(spec, "writer", metadata, providerDProfile.agent, refs)[field]).toEqual(wire);
  });
});

describe("agent fromWire returns the declared shape", () => {
  const declared: Json = {
    ...base,
    description: "writes",
    tools: { builtin: ["bash", "read"], default_permission: "ask", permissions: { read: "allow" } },
    mcp_servers: [{ name: "forge", type: "url", url: "https://mcp.example/mcp" }],
    skills: ["mine", { type: "official", skill_id: "pdf" }],
    multiagent: { type: "coordinator", agents: ["helper", { agent_id: "agent_ext" }] },
    metadata: { team: "a" },
  };
  const reverse = new Map([
    ["id-skills-mine", "mine"],
    ["id-agents-helper", "helper"],
  ]);

  for (const profile of [providerCProfile, providerDProfile]) {
    it(`${profile.agent.provider}: fromWire(toWire(spec)) equals the canonical declaration`, () => {
      const wire = agentToWire(
        declared,
        "writer",
        withOwnership({ team: "a" }, OWNER, METADATA_LIMITS),
        profile.agent,
        refs,
      );
      const back = agentFromWire({ ...wire, id: "a1", version: 1 }, profile.agent, reverse);
      expect(back).toEqual(canonicalAgent(declared, profile.agent.provider));
      expect(back.metadata).toEqual({ team: "a" });
    });
  }

  it("an untouched all-on toolset reads back as no tools", () => {
    expect(
      agentFromWire({ tools: [{ type: toolsetC }], model: "m" }, providerCProfile.agent, new Map()),
    ).toEqual({
      model: "m",
      // No roster on the wire is an observation: null compares equal to a declaration without one.
      multiagent: null,
    });
  });
  it("a roster member this declaration does not name reads back as {agent_id}", () => {
    const back = agentFromWire(
      { model: { id: "m" }, multiagent: { type: "coordinator", agents: [{ type: "agent", id: "other" }] } },
      providerDProfile.agent,
      new Map(),
    );
    expect(back.multiagent).toEqual({ type: "coordinator", agents: [{ agent_id: "other" }] });
  });
});

describe("session defaults (attached to every session of the agent)", () => {
  it("provider_c: memory stores, file mounts under /workspace, git repositories without token", () => {
    const session = sessionDefaults(
      {
        environment: "dev",
        vault: "keys",
        memory_stores: ["notes"],
        files: [{ file: "data", mount_path: "input/data.csv" }],
        resources: [
          {
            type: "git_repository",
            url: "https://github.com/o/r.git",
            authorization_token: "tok",
            checkout: { branch: "main" },
          },
        ],
      },
      providerCProfile.agent,
      refs,
    );
    expect(session).toEqual({
      environment_id: "id-environments-dev",
      vault_ids: ["id-vaults-keys"],
      resources: [
        { type: "memory_store", memory_store_id: "id-memory_stores-notes" },
        { type: "file", file_id: "id-files-data", mount_path: "/workspace/input/data.csv" },
        {
          type: "github_repository",
          url: "https://github.com/o/r",
          checkout: { type: "branch", name: "main" },
          mount_path: "/workspace/r",
        },
      ],
    });
  });
  it("provider_d: git repositories are dropped with a warning; files mount under /mnt", () => {
    const warnings: string[] = [];
    const session = sessionDefaults(
      {
        files: [{ file: "data", mount_path: "/mnt/x" }],
        resources: [{ type: "git_repository", url: "https://g/r" }],
      },
      providerDProfile.agent,
      refs,
      (m) => warnings.push(m),
    );
    expect(session.resources).toEqual([{ type: "file", file_id: "id-files-data", mount_path: "/mnt/x" }]);
    expect(warnings[0]).toMatch(/not supported by provider_d/);
  });
  it("an absolute mount path outside the root is rejected, not rewritten", () => {
    expect(() =>
      sessionDefaults({ files: [{ file: "d", mount_path: "/data/x" }] }, providerCProfile.agent, refs),
    ).toThrow(/not under this provider's mount root \/workspace/);
  });
});

describe("read-backs with server-filled defaults", () => {
  const allow = { type: "always_allow" };
  it("default_config/permission_policy filled in by the provider do not read as changes", () => {
    const remote = {
      model: { id: "m", speed: "standard" },
      mcp_servers: [{ name: "forge", type: "url", url: "https://m/mcp" }],
      tools: [
        { type: toolsetC, default_config: { enabled: true, permission_policy: allow }, configs: [] },
        {
          type: "mcp_toolset",
          mcp_server_name: "forge",
          default_config: { enabled: true, permission_policy: allow },
          configs: [],
        },
      ],
      skills: [
        { type: "anthropic", skill_id: "pdf", version: "latest" },
        { type: "custom", skill_id: "s9", version: "1759" },
      ],
    };
    const declared = {
      model: "m",
      instructions: "x",
      mcp_servers: [{ name: "forge", url: "https://m/mcp" }],
      skills: [
        { type: "official", skill_id: "pdf" },
        { type: "custom", skill_id: "s9" },
      ],
    };
    const reverse = agentReverseRefs(declared, fakeResolver());
    const back = agentFromWire(remote, providerCProfile.agent, reverse);
    const canonical = canonicalAgent(declared, "provider_c");
    for (const key of Object.keys(back)) expect(sameValue(back[key], canonical[key])).toBe(true);
    expect(back.tools).toBeUndefined();
  });
  it("a default permission of always_ask reads back as ask for every enabled builtin", () => {
    const back = agentFromWire(
      {
        model: "m",
        tools: [
          {
            type: toolsetC,
            default_config: { enabled: false, permission_policy: { type: "always_ask" } },
            configs: [{ name: "bash", enabled: true }],
          },
        ],
      },
      providerCProfile.agent,
      new Map(),
    );
    expect(back.tools).toEqual({ builtin: ["bash"], permissions: { bash: "ask" } });
  });
});
