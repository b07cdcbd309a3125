import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { skillForm, skillMd, useWire } from "../support/wire.js";
import { fixtures, openC } from "./setup.js";

const w = useWire(openC);

const TOOLSET = "agent_toolset_20260401";

describe("docs/wire/provider-c.md §3.5 agent", () => {
  it("create / get / list with the wire field names", async () => {
    const a = await w.ok("POST", "/agents", {
      name: "coder",
      model: { id: "claude-sonnet-4-5", speed: "fast" },
      system: "be brief",
      tools: [
        {
          type: TOOLSET,
          default_config: { enabled: false },
          configs: [
            { name: "bash", enabled: true, permission_policy: { type: "always_ask" } },
            { name: "read", enabled: true, permission_policy: { type: "always_allow" } },
          ],
        },
        { type: "mcp_toolset", mcp_server_name: "docs" },
      ],
      mcp_servers: [{ name: "docs", type: "url", url: "https://mcp.example.com/mcp" }],
      metadata: { "agents.project": "p" },
    });
    expect(a).toMatchObject({
      type: "agent",
      name: "coder",
      model: { id: "claude-sonnet-4-5", speed: "fast" },
      system: "be brief",
      version: 1,
      multiagent: null,
      archived_at: null,
      mcp_servers: [{ name: "docs", type: "url", url: "https://mcp.example.com/mcp" }],
    });
    expect(a.tools[0].configs[0]).toEqual({
      name: "bash",
      enabled: true,
      permission_policy: { type: "always_ask" },
    });
    expect(a.tools[1]).toMatchObject({ type: "mcp_toolset", mcp_server_name: "docs" });
    expect(await w.ok("GET", `/agents/${a.id}`)).toEqual(a);
    expect((await w.ok("GET", "/agents")).data).toEqual([a]);
  });

  it("model: a bare string id is accepted and read back as {id, speed: standard}", async () => {
    expect((await fixtures(w).agent()).model).toEqual({ id: "claude-sonnet-4-5", speed: "standard" });
  });

  it("model: {id, speed, effort} is kept; an unknown speed → 400", async () => {
    const model = { id: "claude-opus-4-5", speed: "standard", effort: "high" };
    expect((await fixtures(w).agent("a", { model })).model).toEqual(model);
    const r = await w.call("POST", "/agents", { json: { name: "b", model: { id: "m", speed: "turbo" } } });
    expect(r.status).toBe(400);
  });

  it("no tools configs: the toolset entry alone means all tools on", async () => {
    const a = await fixtures(w).agent("a", { tools: [{ type: TOOLSET }] });
    expect(a.tools).toEqual([
      {
        type: TOOLSET,
        default_config: { enabled: true, permission_policy: { type: "always_allow" } },
        configs: [],
      },
    ]);
  });

  it.each([
    [
      "an unsupported tool name (download_file)",
      { tools: [{ type: TOOLSET, configs: [{ name: "download_file" }] }] },
    ],
    ["provider_d's toolset type", { tools: [{ type: "agent_toolset_20260701" }] }],
    ["an mcp_toolset without its server", { tools: [{ type: "mcp_toolset", mcp_server_name: "nope" }] }],
    ["an MCP server without url", { mcp_servers: [{ name: "x", type: "url" }] }],
    [
      "a bad permission policy",
      { tools: [{ type: TOOLSET, configs: [{ name: "bash", permission_policy: { type: "ask" } }] }] },
    ],
    [
      "`official` as a skill type (the wire value is `anthropic`)",
      { skills: [{ type: "official", skill_id: "xlsx" }] },
    ],
    ["a missing custom skill", { skills: [{ type: "custom", skill_id: "skill_missing" }] }],
    ["a missing model", { model: undefined }],
  ])("create rejected: %s → 400", async (_n, extra) => {
    const r = await w.call("POST", "/agents", { json: { name: "a", model: "m", ...extra } });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("invalid_request_error");
  });

  it("skills: custom (pinned to its latest version by default) and anthropic built-ins", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillForm({ "pdfx/SKILL.md": skillMd("pdfx") }) });
    const a = await fixtures(w).agent("a", {
      skills: [
        { type: "custom", skill_id: sk.id },
        { type: "anthropic", skill_id: "xlsx" },
      ],
    });
    expect(a.skills).toEqual([
      { type: "custom", skill_id: sk.id, version: sk.latest_version_id },
      { type: "anthropic", skill_id: "xlsx", version: "latest" },
    ]);
  });

  it("skills: a custom skill pinned to `latest` or to an existing version; an unknown version → 400", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillForm({ "pdfx/SKILL.md": skillMd("pdfx") }) });
    const a = await fixtures(w).agent("a", {
      skills: [{ type: "custom", skill_id: sk.id, version: "latest" }],
    });
    expect(a.skills[0].version).toBe("latest");
    const pinned = { type: "custom", skill_id: sk.id, version: sk.latest_version_id };
    expect((await fixtures(w).agent("b", { skills: [pinned] })).skills).toEqual([pinned]);
    const bad = await w.call("POST", "/agents", {
      json: { name: "c", model: "m", skills: [{ type: "custom", skill_id: sk.id, version: "1" }] },
    });
    expect(bad.status).toBe(400);
  });

  it("update: body carries the current version; the version increments", async () => {
    const a = await fixtures(w).agent();
    const b = await w.ok("POST", `/agents/${a.id}`, { version: 1, system: "new" });
    expect(b).toMatchObject({ version: 2, system: "new", name: a.name });
    const c = await w.ok("POST", `/agents/${a.id}`, { version: 2, metadata: { k: "v" } });
    expect(c.version).toBe(3);
  });

  it("update: a stale version → 409 conflict_error and nothing changes", async () => {
    const a = await fixtures(w).agent();
    await w.ok("POST", `/agents/${a.id}`, { version: 1, system: "first" });
    const stale = await w.call("POST", `/agents/${a.id}`, { json: { version: 1, system: "lost update" } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ type: "error", error: { type: "conflict_error" } });
    expect((await w.ok("GET", `/agents/${a.id}`)).system).toBe("first");
  });

  it("update: a missing version → 400", async () => {
    const a = await fixtures(w).agent();
    expect((await w.call("POST", `/agents/${a.id}`, { json: { system: "x" } })).status).toBe(400);
  });

  it("update: an unchanged body makes no new version", async () => {
    const a = await fixtures(w).agent();
    expect((await w.ok("POST", `/agents/${a.id}`, { version: 1, name: a.name })).version).toBe(1);
  });

  it("versions: GET /agents/{id}/versions newest first, GET /agents/{id}?version=N", async () => {
    const a = await fixtures(w).agent();
    await w.ok("POST", `/agents/${a.id}`, { version: 1, system: "v2" });
    const versions = await w.ok("GET", `/agents/${a.id}/versions`);
    expect(versions.data.map((v: any) => v.version)).toEqual([2, 1]);
    expect(versions.next_page).toBeNull();
    expect((await w.ok("GET", `/agents/${a.id}?version=1`)).system).toBeNull();
    expect((await w.ok("GET", `/agents/${a.id}?version=2`)).system).toBe("v2");
    expect((await w.call("GET", `/agents/${a.id}?version=3`)).status).toBe(404);
  });

  it("remove: POST /agents/{id}/archive is the only option", async () => {
    const a = await fixtures(w).agent();
    const archived = await w.ok("POST", `/agents/${a.id}/archive`);
    expect(archived.archived_at).toEqual(expect.any(String));
    expect((await w.call("DELETE", `/agents/${a.id}`)).status).toBe(404);
  });
});

describe("docs/wire/provider-c.md §3.5 multiagent", () => {
  it("roster: id strings, {type:'agent', id, version} and one {type:'self'}; read back as objects", async () => {
    const m1 = await fixtures(w).agent("m1");
    const m2 = await fixtures(w).agent("m2");
    const lead = await fixtures(w).agent("lead", {
      multiagent: {
        type: "coordinator",
        agents: [m1.id, { type: "agent", id: m2.id, version: 1 }, { type: "self" }],
      },
    });
    expect(lead.multiagent).toEqual({
      type: "coordinator",
      agents: [
        { type: "agent", id: m1.id, version: 1 },
        { type: "agent", id: m2.id, version: 1 },
        { type: "self" },
      ],
    });
    const cleared = await w.ok("POST", `/agents/${lead.id}`, { version: 1, multiagent: null });
    expect(cleared.multiagent).toBeNull();
  });

  it.each([
    ["an empty roster", async () => []],
    ["21 members", async () => Array.from({ length: 21 }, () => "agent_x")],
    ["a missing member", async () => ["agent_missing"]],
    [
      "a duplicate member",
      async () => {
        const m = await fixtures(w).agent("m");
        return [m.id, m.id];
      },
    ],
    ["two self entries", async () => [{ type: "self" }, { type: "self" }]],
    [
      "an archived member",
      async () => {
        const m = await fixtures(w).agent("m");
        await w.ok("POST", `/agents/${m.id}/archive`);
        return [m.id];
      },
    ],
    [
      "a member that coordinates (depth > 1)",
      async () => {
        const leaf = await fixtures(w).agent("leaf");
        const mid = await fixtures(w).agent("mid", {
          multiagent: { type: "coordinator", agents: [leaf.id] },
        });
        return [mid.id];
      },
    ],
  ])("roster rejected: %s → 400", async (_n, members) => {
    const agents = await members();
    const r = await w.call("POST", "/agents", {
      json: { name: "lead", model: "m", multiagent: { type: "coordinator", agents } },
    });
    expect(r.status).toBe(400);
  });

  it("20 distinct members are accepted", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await fixtures(w).agent(`m${i}`)).id);
    const lead = await fixtures(w).agent("lead", { multiagent: { type: "coordinator", agents: ids } });
    expect(lead.multiagent.agents).toHaveLength(20);
  });
});

describe("docs/wire/provider-c.md §3.4 skill", () => {
  const files = (name: string, extra: Record<string, string> = {}) => ({
    [`${name}/SKILL.md`]: skillMd(name, "Does things"),
    [`${name}/scripts/run.py`]: "print('hi')",
    ...extra,
  });

  it("create: one files[] part per file named <dir>/<path>; SDK field names on the skill", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillForm(files("report-gen")) });
    expect(sk).toMatchObject({
      type: "skill",
      display_name: "report-gen",
      latest_version_id: expect.any(String),
      source: { type: "custom" },
    });
    expect(await w.ok("GET", `/skills/${sk.id}`)).toEqual(sk);
  });

  it("display_name form field overrides the directory name", async () => {
    const form = skillForm(files("rg"));
    form.append("display_name", "Report Generator");
    expect((await w.ok("POST", "/skills", { form })).display_name).toBe("Report Generator");
  });

  it.each([
    ["frontmatter name ≠ directory", { "dir-a/SKILL.md": skillMd("other") }],
    ["no SKILL.md at the directory root", { "dir-a/docs/SKILL.md": skillMd("dir-a") }],
    ["two top-level directories", { "a/SKILL.md": skillMd("a"), "b/x.md": "x" }],
    ["a file outside any directory", { "SKILL.md": skillMd("x") }],
    ["no frontmatter", { "a/SKILL.md": "# a" }],
  ])("create rejected: %s → 400", async (_n, tree) => {
    const r = await w.call("POST", "/skills", { form: skillForm(tree) });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("invalid_request_error");
  });

  it("a single `files` zip part (provider_d's form) is refused", async () => {
    const r = await w.call("POST", "/skills", { form: skillForm(files("zz"), "files") });
    expect(r.status).toBe(400);
  });

  it("versions: new version, list newest first, get one, download the zip", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillForm(files("rg")) });
    await w.control("POST", "/clock", { advance_ms: 5 });
    const v2 = await w.ok("POST", `/skills/${sk.id}/versions`, {
      form: skillForm(files("rg", { "rg/extra.md": "more" })),
    });
    expect(v2).toMatchObject({ type: "skill_version", skill_id: sk.id, name: "rg" });
    expect((await w.ok("GET", `/skills/${sk.id}`)).latest_version_id).toBe(v2.version);
    const list = await w.ok("GET", `/skills/${sk.id}/versions`);
    expect(list.data.map((v: any) => v.version)).toEqual([v2.version, sk.latest_version_id]);
    expect(await w.ok("GET", `/skills/${sk.id}/versions/${v2.version}`)).toEqual(v2);
    const zip = await w.call("GET", `/skills/${sk.id}/versions/${v2.version}/content`);
    expect(zip.headers.get("content-type")).toContain("application/zip");
    const entries = unzipSync(zip.bytes);
    expect(Object.keys(entries).sort()).toEqual(["rg/SKILL.md", "rg/extra.md", "rg/scripts/run.py"]);
    expect(new TextDecoder().decode(entries["rg/extra.md"])).toBe("more");
  });

  it("a new version must keep the skill's name", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillForm(files("rg")) });
    expect(
      (await w.call("POST", `/skills/${sk.id}/versions`, { form: skillForm(files("other")) })).status,
    ).toBe(400);
  });

  it("list: custom skills plus the built-in catalog; ?source= filters", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillForm(files("rg")) });
    const custom = await w.ok("GET", "/skills?source=custom");
    expect(custom.data.map((s: any) => s.id)).toEqual([sk.id]);
    const builtin = await w.ok("GET", "/skills?source=anthropic");
    expect(builtin.data.every((s: any) => s.source.type === "anthropic")).toBe(true);
    expect((await w.ok("GET", "/skills")).data.length).toBe(1 + builtin.data.length);
    expect((await w.call("GET", "/skills?source=official")).status).toBe(400);
  });
});
