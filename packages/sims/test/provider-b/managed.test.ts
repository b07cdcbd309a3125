import { describe, expect, it } from "vitest";
import { client, form, skillZip } from "../wire-client.js";
import { fixtures, KEY, useProviderB } from "./setup.js";

const b = useProviderB();
const { api, fwd, control } = b;

const ENVELOPE = {
  type: "error",
  request_id: expect.any(String),
  error: { type: expect.any(String), code: expect.any(String), message: expect.any(String) },
};

const { env, agent } = fixtures(api);

/** Creates a deployment (with a fresh environment and agent) whose environment_variables are `vars`. */
async function deployWithVariables(name: string, vars: unknown) {
  const e = await env();
  const a = await agent();
  return api("POST", "/deployments", {
    name,
    agent: a.id,
    environment_id: e.id,
    initial_events: [{ type: "user.message", content: [{ type: "text", text: "hi" }] }],
    environment_variables: vars,
  });
}

describe("provider_b transport (docs/wire/provider-b.md §1)", () => {
  it.each([
    ["no Authorization header", {}],
    ["an unknown token", { authorization: "Bearer nope" }],
    ["a non-Bearer scheme", { authorization: `Basic ${KEY}` }],
  ])("answers 401 in the error envelope for %s", async (_label, headers) => {
    const r = await client(b.sim.url, headers as Record<string, string>)("GET", "/environments");
    expect(r.status).toBe(401);
    expect(r.body).toEqual(ENVELOPE);
    expect(r.body.error.type).toBe("authentication_error");
  });

  it("accepts keys added through /_sim/seed", async () => {
    await control("POST", "/seed", { api_keys: ["pat-extra"] });
    const r = await client(b.sim.url, { authorization: "Bearer pat-extra" })("GET", "/environments");
    expect(r.status).toBe(200);
  });

  it("serves the Forward gateway beside the cloud one on the same simulator", async () => {
    expect(b.sim.url.endsWith("/api/v1/cloud")).toBe(true);
    expect((await fwd("GET", "/environments")).status).toBe(200);
  });

  it("rejects request bodies over 4 MB with 400 invalid_request_error", async () => {
    const r = await api("POST", "/environments", {
      name: "big",
      config: { type: "cloud" },
      pad: "x".repeat(4_200_000),
    });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("invalid_request_error");
  });

  it("answers unknown routes and injected faults in the same envelope", async () => {
    expect((await api("GET", "/nothing")).body).toEqual(ENVELOPE);
    await control("PUT", "/faults", {
      rules: [{ path: "/environments$", nth: 2, action: { type: "status", status: 503 } }],
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api("GET", "/environments")).status);
    expect(statuses).toEqual([200, 503, 200]);
  });
});

describe("provider_b pagination (docs/wire/provider-b.md §2)", () => {
  it("pages with limit + after_id → {data, has_more, last_id} and stops on has_more false", async () => {
    for (let i = 0; i < 5; i++) await env(`e${i}`);
    const seen: string[] = [];
    let after = "";
    for (;;) {
      const r = await api("GET", `/environments?limit=2${after ? `&after_id=${after}` : ""}`);
      expect(Object.keys(r.body).sort()).toEqual(["data", "has_more", "last_id"]);
      seen.push(...r.body.data.map((e: any) => e.name));
      if (!r.body.has_more) break;
      after = r.body.last_id;
    }
    expect(seen).toEqual(["e0", "e1", "e2", "e3", "e4"]);
    const empty = await api("GET", `/environments?after_id=${after}&limit=100`);
    expect(empty.body.has_more).toBe(false);
  });

  it("pages newest first with order=desc, the cursor moving backwards", async () => {
    for (let i = 0; i < 3; i++) await env(`e${i}`);
    const p1 = await api("GET", "/environments?order=desc&limit=2");
    expect(p1.body.data.map((e: any) => e.name)).toEqual(["e2", "e1"]);
    const p2 = await api("GET", `/environments?order=desc&limit=2&after_id=${p1.body.last_id}`);
    expect(p2.body).toMatchObject({ data: [{ name: "e0" }], has_more: false });
    expect((await api("GET", "/environments?order=sideways")).status).toBe(400);
  });

  it.each([["0"], ["101"], ["x"]])("rejects limit=%s", async (limit) => {
    expect((await api("GET", `/environments?limit=${limit}`)).status).toBe(400);
  });

  it("rejects an after_id that names nothing, but keeps a deleted cursor valid", async () => {
    expect((await api("GET", "/environments?after_id=env_nope")).status).toBe(400);
    const a = await env("a");
    await env("b");
    await api("DELETE", `/environments/${a.id}`);
    const r = await api("GET", `/environments?after_id=${a.id}`);
    expect(r.body.data.map((e: any) => e.name)).toEqual(["b"]);
  });

  it.each([
    ["an object", { A: "1", B: "x=y" }],
    ["a KEY=VALUE;… string", "A=1;B=x=y"],
  ])("deployment environment_variables as %s read back as the map", async (_n, vars) => {
    const r = await deployWithVariables("vars", vars);
    expect(r.status).toBe(200);
    expect(r.body.environment_variables).toEqual({ A: "1", B: "x=y" });
    const updated = await api("POST", `/deployments/${r.body.id}`, { environment_variables: "C=3" });
    expect(updated.body.environment_variables).toEqual({ C: "3" });
  });

  it.each([["A"], ["1A=2"], [7]])("deployment environment_variables %j → 400", async (vars) => {
    const r = await deployWithVariables("bad-vars", vars);
    expect(r.status).toBe(400);
  });

  it("pages deployments with page → {data, has_more, next_page}", async () => {
    const e = await env();
    const a = await agent();
    const body = {
      agent: a.id,
      environment_id: e.id,
      initial_events: [{ type: "user.message", content: [{ type: "text", text: "hi" }] }],
    };
    for (let i = 0; i < 3; i++)
      expect((await api("POST", "/deployments", { ...body, name: `d${i}` })).status).toBe(200);
    const p1 = await api("GET", "/deployments?limit=2");
    expect(p1.body).toMatchObject({ has_more: true, next_page: expect.any(String) });
    const p2 = await api("GET", `/deployments?limit=2&page=${p1.body.next_page}`);
    expect(p2.body.data.map((d: any) => d.name)).toEqual(["d2"]);
    expect(p2.body).toMatchObject({ has_more: false, next_page: null });
  });
});

describe("provider_b environments (docs/wire/provider-b.md §3.1)", () => {
  it("creates a cloud environment read back with default networking and packages arrays", async () => {
    const e = await env("pk", { type: "cloud", packages: { apt: ["git"], pip: ["rich"] } });
    expect(e.id).toMatch(/^env_/);
    expect(e.description).toBe("");
    expect(e.config).toEqual({
      type: "cloud",
      networking: { type: "unrestricted" },
      packages: { type: "packages", apt: ["git"], npm: [], pip: ["rich"], cargo: [], gem: [], go: [] },
    });
  });

  it.each([
    ["non-empty cargo", { type: "cloud", packages: { cargo: ["ripgrep"] } }],
    ["self_hosted with packages", { type: "self_hosted", packages: { apt: ["git"] } }],
    ["self_hosted with networking", { type: "self_hosted", networking: { type: "unrestricted" } }],
    ["a setup_script over 64 KiB", { type: "cloud", setup_script: "x".repeat(64 * 1024 + 1) }],
    ["an unknown config type", { type: "vm" }],
  ])("rejects %s", async (_label, config) => {
    const r = await api("POST", "/environments", { name: "bad", config });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("invalid_request_error");
  });

  it("accepts self_hosted (BYOC) with a setup_script, and replaces config on update", async () => {
    const e = await env("byoc", { type: "self_hosted", setup_script: "apt-get install -y jq" });
    expect(e.config).toEqual({ type: "self_hosted", setup_script: "apt-get install -y jq" });
    const u = await api("POST", `/environments/${e.id}`, { name: "byoc", config: { type: "self_hosted" } });
    expect(u.body.config).toEqual({ type: "self_hosted" });
  });

  it("patches metadata: null removes a key", async () => {
    const e = await env();
    const u = await api("POST", `/environments/${e.id}`, { metadata: { "agents.project": null, k: "v" } });
    expect(u.body.metadata).toEqual({ k: "v" });
  });

  it("answers 409 on a duplicate name", async () => {
    await env("dup");
    const r = await api("POST", "/environments", { name: "dup", config: { type: "cloud" } });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain("already exists");
  });

  it("refuses to delete an environment in use (409 'in use'), deletes it once the session is gone", async () => {
    const e = await env();
    const a = await agent();
    const s = await api("POST", "/sessions", { agent: a.id, environment_id: e.id });
    const blocked = await api("DELETE", `/environments/${e.id}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.message).toContain("in use");
    expect((await api("GET", "/sessions")).body.data.map((x: any) => x.environment_id)).toEqual([e.id]);
    expect((await api("DELETE", `/sessions/${s.body.id}`)).status).toBe(200);
    const archived = await api("POST", "/sessions", { agent: a.id, environment_id: e.id });
    await api("POST", `/sessions/${archived.body.id}/archive`);
    expect((await api("DELETE", `/environments/${e.id}`)).status).toBe(200);
    expect((await api("GET", `/environments/${e.id}`)).status).toBe(404);
  });

  it("archives: readable, hidden from lists unless asked, not updatable", async () => {
    const e = await env();
    expect((await api("POST", `/environments/${e.id}/archive`)).body.archived_at).toEqual(expect.any(String));
    expect((await api("GET", `/environments/${e.id}`)).status).toBe(200);
    expect((await api("GET", "/environments")).body.data).toHaveLength(0);
    expect((await api("GET", "/environments?include_archived=true")).body.data).toHaveLength(1);
    expect((await api("POST", `/environments/${e.id}`, { name: "x" })).status).toBe(409);
  });
});

describe("provider_b vaults and credentials (docs/wire/provider-b.md §3.2)", () => {
  it.each([
    [
      "static_bearer",
      { type: "static_bearer", mcp_server_url: "https://mcp.example/mcp", token: "tok-secret" },
      { type: "static_bearer", mcp_server_url: "https://mcp.example/mcp" },
    ],
    [
      "environment_variable",
      { type: "environment_variable", secret_name: "API_KEY", secret_value: "val-secret" },
      { type: "environment_variable", secret_name: "API_KEY", networking: { type: "unrestricted" } },
    ],
  ])("adds a %s credential and never reads the secret back", async (_t, auth, readBack) => {
    const v = await api("POST", "/vaults", { display_name: "v", metadata: {} });
    expect(v.body.id).toMatch(/^vlt_/);
    const c = await api("POST", `/vaults/${v.body.id}/credentials`, { display_name: "c", auth });
    expect(c.status).toBe(200);
    expect(c.body.auth).toEqual(readBack);
    const list = await api("GET", `/vaults/${v.body.id}/credentials`);
    expect(list.body.data).toHaveLength(1);
    const everything = JSON.stringify([c.body, list.body, (await control("GET", "/state")).body]);
    expect(everything).not.toContain('secret"');
    expect(everything).not.toMatch(/tok-secret|val-secret/);
  });

  it("reads display_name back as null when unset, and deleting a vault takes its credentials", async () => {
    const v = await api("POST", "/vaults", { metadata: {} });
    expect(v.body.display_name).toBeNull();
    await api("POST", `/vaults/${v.body.id}/credentials`, {
      auth: { type: "environment_variable", secret_name: "A", secret_value: "b" },
    });
    expect((await api("DELETE", `/vaults/${v.body.id}`)).status).toBe(200);
    expect((await control("GET", "/state")).body.credentials).toHaveLength(0);
  });
});

describe("provider_b files (docs/wire/provider-b.md §3.3)", () => {
  it("uploads multipart file/name/purpose, reads it back, serves a short-lived download URL", async () => {
    const bytes = new TextEncoder().encode("hello file");
    const up = await api(
      "POST",
      "/files",
      form({
        file: { name: "notes.txt", type: "text/plain", bytes },
        name: "notes.txt",
        purpose: "session_resource",
      }),
    );
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      file_id: up.body.id,
      filename: "notes.txt",
      mime_type: "text/plain",
      size_bytes: 10,
      purpose: "session_resource",
    });
    expect((await api("GET", `/files/${up.body.id}`)).body.filename).toBe("notes.txt");
    const url = (await api("GET", `/files/${up.body.id}/content`)).body;
    expect(url).toMatchObject({ url: expect.any(String), expires_at: expect.any(String) });
    expect(await (await fetch(url.url)).text()).toBe("hello file");
    await control("POST", "/clock", { advance_seconds: 3600 });
    expect((await fetch(url.url)).status).toBe(403);
    expect((await api("DELETE", `/files/${up.body.id}`)).status).toBe(200);
    expect((await api("GET", `/files/${up.body.id}`)).status).toBe(404);
  });

  it("keeps domains apart: a cloud file is not visible on the Forward gateway", async () => {
    const up = await api("POST", "/files", form({ file: { name: "a.txt", bytes: new Uint8Array([1]) } }));
    expect((await fwd("GET", `/files/${up.body.id}`)).status).toBe(404);
  });
});

describe("provider_b skills (docs/wire/provider-b.md §3.4)", () => {
  it("creates from a root-level zip, versions from a folder-wrapped `files` zip, lists catalogs", async () => {
    const zip = skillZip("summarize");
    const s = await api(
      "POST",
      "/skills",
      form({
        file: { name: "summarize.zip", type: "application/zip", bytes: zip },
        name: "summarize",
        type: "custom",
      }),
    );
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ display_title: "summarize", source: "custom", latest_version: "1" });
    const dup = await api(
      "POST",
      "/skills",
      form({ file: { name: "summarize.zip", bytes: zip }, name: "summarize", type: "custom" }),
    );
    expect(dup.status).toBe(409);
    const flat = await api(
      "POST",
      `/skills/${s.body.id}/versions`,
      form({ files: { name: "s.zip", bytes: zip } }),
    );
    expect(flat.status).toBe(400);
    const v2 = await api(
      "POST",
      `/skills/${s.body.id}/versions`,
      form({ files: { name: "s.zip", bytes: skillZip("summarize", "summarize") } }),
    );
    expect(v2.body).toMatchObject({ skill_id: s.body.id, version: "2" });
    expect((await api("GET", `/skills/${s.body.id}`)).body.latest_version).toBe("2");
    expect((await api("GET", "/skills")).body.data).toHaveLength(1);
    expect((await api("GET", "/skills?source=qoder")).body.data[0].source).toBe("qoder");
    expect((await api("GET", "/skills?source=official")).status).toBe(400);
    expect((await api("DELETE", `/skills/${s.body.id}`)).status).toBe(200);
  });

  it("rejects an upload that is not a zip with SKILL.md", async () => {
    const r = await api(
      "POST",
      "/skills",
      form({ file: { name: "x.zip", bytes: new Uint8Array([1, 2, 3]) }, name: "x", type: "custom" }),
    );
    expect(r.status).toBe(400);
  });
});

describe("provider_b managed agents (docs/wire/provider-b.md §3.5)", () => {
  it("creates with defaults, updates with PUT + current version, rejects a stale version", async () => {
    const a = await agent();
    expect(a).toMatchObject({
      version: 1,
      model: "auto",
      system: "be brief",
      tools: [{ type: "agent_toolset_20260401" }],
    });
    expect(a.id).toMatch(/^agent_[0-9A-Za-z]{32}$/);
    expect((await api("POST", `/agents/${a.id}`, { version: 1 })).status).toBe(404);
    const u = await api("PUT", `/agents/${a.id}`, { version: 1, system: "be briefer" });
    expect(u.body.version).toBe(2);
    const stale = await api("PUT", `/agents/${a.id}`, { version: 1, system: "x" });
    expect(stale.status).toBe(409);
  });

  it("validates tools, MCP servers and skills", async () => {
    const bad = [
      { tools: [{ type: "agent_toolset_20260401", configs: [{ name: "web_fetch" }] }] },
      { mcp_servers: [{ name: "gh", type: "http" }] },
      { tools: [{ type: "mcp_toolset", mcp_server_name: "nope" }] },
      { skills: [{ type: "custom", skill_id: "skill_missing" }] },
    ];
    for (const extra of bad)
      expect((await api("POST", "/agents", { name: "x", model: "auto", ...extra })).status).toBe(400);
    const ok = await api("POST", "/agents", {
      name: "ok",
      model: "auto",
      mcp_servers: [{ name: "gh", type: "http", url: "https://mcp.example/gh" }],
      tools: [
        {
          type: "agent_toolset_20260401",
          configs: [{ name: "WebFetch", enabled: true, permission_policy: { type: "always_ask" } }],
        },
        { type: "mcp_toolset", mcp_server_name: "gh", configs: [] },
      ],
      skills: [{ type: "qoder", skill_id: "skill_qoder_pdf" }],
    });
    expect(ok.status).toBe(200);
  });

  it("pins roster member versions, caps the roster at 20 and clears it with null", async () => {
    const m = await agent("member");
    await api("PUT", `/agents/${m.id}`, { version: 1, system: "v2" });
    const c = await api("POST", "/agents", {
      name: "coord",
      model: "auto",
      multiagent: { type: "coordinator", agents: [{ type: "agent", id: m.id }, { type: "self" }] },
    });
    expect(c.body.multiagent.agents[0]).toEqual({ type: "agent", id: m.id, version: 2 });
    const many = Array.from({ length: 21 }, () => ({ type: "self" }));
    expect(
      (
        await api("POST", "/agents", {
          name: "c2",
          model: "auto",
          multiagent: { type: "coordinator", agents: many },
        })
      ).status,
    ).toBe(400);
    const cleared = await api("PUT", `/agents/${c.body.id}`, { version: 1, multiagent: null });
    expect(cleared.body.multiagent).toBeNull();
  });

  it("archives (hidden from lists, kept in the state dump) and deletes", async () => {
    const a = await agent("arch");
    const b = await agent("del");
    await api("POST", `/agents/${a.id}/archive`);
    expect((await api("GET", "/agents")).body.data.map((x: any) => x.id)).toEqual([b.id]);
    expect((await api("DELETE", `/agents/${b.id}`)).status).toBe(200);
    const dump = (await control("GET", "/state")).body;
    expect(dump.agents.map((x: any) => x.id)).toEqual([a.id]);
  });
});
