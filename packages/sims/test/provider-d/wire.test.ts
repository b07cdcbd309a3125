import { describe, expect, it } from "vitest";
import { fileForm, skillForm, skillMd, skillZipForm, useWire } from "../support/wire.js";
import { fixtures, KEY, openD } from "./setup.js";

const w = useWire(openD);

const errorShape = (code: string) => ({ error: { code, message: expect.any(String) } });

describe("docs/wire/provider-d.md §1 transport", () => {
  it("serves the API under /api/v3", () => {
    expect(w.sim.url).toMatch(/\/api\/v3$/);
  });

  it.each([
    ["missing Authorization", {}],
    ["a wrong key", { authorization: "Bearer nope" }],
    ["provider_c's x-api-key", { "x-api-key": KEY }],
    ["Basic instead of Bearer", { authorization: `Basic ${KEY}` }],
  ])("auth: %s → 401 {error:{code:AuthenticationError}}", async (_n, headers) => {
    const r = await w.call("GET", "/agents", { headers });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(errorShape("AuthenticationError"));
  });

  it("auth: no version or beta header is needed; a seeded key is accepted", async () => {
    expect((await w.call("GET", "/agents")).status).toBe(200);
    await w.control("POST", "/seed", { api_keys: ["other"] });
    expect((await w.call("GET", "/agents", { headers: { authorization: "Bearer other" } })).status).toBe(200);
  });
});

describe("docs/wire/provider-d.md §2 differences from provider_c", () => {
  it("builtin toolset type is agent_toolset_20260701; provider_c's 20260401 → 400", async () => {
    const a = await fixtures(w).agent("a", { tools: [{ type: "agent_toolset_20260701" }] });
    expect(a.tools[0].type).toBe("agent_toolset_20260701");
    const r = await w.call("POST", "/agents", {
      json: { name: "b", model: { id: "m" }, tools: [{ type: "agent_toolset_20260401" }] },
    });
    expect(r.status).toBe(400);
  });

  it("model must be an object: a bare string → 400 'Mismatch type agent.ModelConfig'; speed echoes standard", async () => {
    const r = await w.call("POST", "/agents", { json: { name: "a", model: "doubao" } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(errorShape("InvalidParameter"));
    expect(r.body.error.message).toContain("Mismatch type agent.ModelConfig");
    expect((await fixtures(w).agent()).model).toEqual({ id: "doubao-seed", speed: "standard" });
  });

  it("roster entries must be objects: a bare id → 400 'Mismatch type agent.AgentRef'; read back as objects", async () => {
    const m = await fixtures(w).agent("m");
    const bad = await w.call("POST", "/agents", {
      json: { name: "lead", model: { id: "x" }, multiagent: { type: "coordinator", agents: [m.id] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("Mismatch type agent.AgentRef");
    const lead = await fixtures(w).agent("lead", {
      multiagent: { type: "coordinator", agents: [{ type: "agent", id: m.id }] },
    });
    expect(lead.multiagent).toEqual({
      type: "coordinator",
      agents: [{ type: "agent", id: m.id, version: 1 }],
    });
    expect((await w.ok("GET", `/agents/${lead.id}`)).multiagent.agents[0]).toMatchObject({
      type: "agent",
      id: m.id,
    });
  });

  it.each([
    ["GET /skills (list)", "GET", "/skills"],
    ["DELETE /skills/{id}", "DELETE", "/skills/ID"],
    ["POST /skills/{id} (update)", "POST", "/skills/ID"],
    ["GET /skills/{id}/versions", "GET", "/skills/ID/versions"],
    ["POST /deployments (no deployment API)", "POST", "/deployments"],
    ["GET /deployments", "GET", "/deployments"],
    ["GET /deployment_runs", "GET", "/deployment_runs"],
    ["POST /memory_stores/{id}/archive", "POST", "/memory_stores/ID/archive"],
    ["GET /memory_stores/{id}/memory_versions", "GET", "/memory_stores/ID/memory_versions"],
    ["POST /agents/{id}/archive", "POST", "/agents/ID/archive"],
    ["GET /agents/{id}/versions", "GET", "/agents/ID/versions"],
    ["GET /files/{id}/content", "GET", "/files/ID/content"],
  ])("absent upstream: %s → 404 in provider_d's error shape", async (_n, method, template) => {
    const sk = await w.ok("POST", "/skills", { form: skillZipForm({ "s/SKILL.md": skillMd("s") }, "s.zip") });
    const store = await fixtures(w).store();
    const agent = await fixtures(w).agent();
    const file = await w.ok("POST", "/files", {
      form: fileForm("a.md", "x", "text/markdown", { purpose: "agent" }),
    });
    const id = template.startsWith("/skills")
      ? sk.id
      : template.startsWith("/memory")
        ? store.id
        : template.startsWith("/agents")
          ? agent.id
          : file.id;
    const r = await w.call(method, template.replace("ID", id), method === "POST" ? { json: {} } : {});
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("ResourceNotFound");
    if (template.startsWith("/skills")) expect((await w.call("GET", `/skills/${sk.id}`)).status).toBe(200);
  });
});

describe("docs/wire/provider-d.md §3.1 environment", () => {
  it("create / get / list / update / delete", async () => {
    const env = await w.ok("POST", "/environments", {
      name: "build-env",
      description: "d",
      metadata: { "agents.resource": "Build Env" },
      config: { type: "cloud", packages: { npm: ["tsx"] } },
    });
    expect(env).toMatchObject({
      id: expect.stringMatching(/^env-/),
      type: "environment",
      name: "build-env",
      config: { networking: { type: "unrestricted" } },
    });
    expect(env).not.toHaveProperty("archived_at");
    expect(await w.ok("GET", `/environments/${env.id}`)).toEqual(env);
    expect((await w.ok("GET", "/environments?limit=100")).data).toEqual([env]);
    const u = await w.ok("POST", `/environments/${env.id}`, { description: "e", metadata: { only: "this" } });
    expect(u.metadata).toEqual({ only: "this" });
    expect(await w.ok("DELETE", `/environments/${env.id}`)).toEqual({
      id: env.id,
      type: "environment_deleted",
    });
  });

  it.each([
    ["abc", true],
    ["a0_b.c-d", true],
    ["0ab", true],
    ["x".repeat(64), true],
    ["ab", false],
    ["Abc", false],
    ["-abc", false],
    ["my env", false],
    ["x".repeat(65), false],
  ])("name %j valid=%s against ^[a-z0-9][a-z0-9-_.]{2,63}$", async (name, valid) => {
    const r = await w.call("POST", "/environments", { json: { name } });
    expect(r.status).toBe(valid ? 200 : 400);
  });

  it("a duplicate name → 409 ResourceConflict '… already exists'", async () => {
    await fixtures(w).env("dup");
    const r = await w.call("POST", "/environments", { json: { name: "dup" } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual(errorShape("ResourceConflict"));
    expect(r.body.error.message).toMatch(/already exists/i);
    expect((await w.ok("POST", "/environments", { name: "dup-1" })).name).toBe("dup-1");
  });

  it("renaming onto a taken name → 409", async () => {
    await fixtures(w).env("one");
    const two = await fixtures(w).env("two");
    expect((await w.call("POST", `/environments/${two.id}`, { json: { name: "one" } })).status).toBe(409);
  });

  it("a deleted name stays reserved for 40 s+ (create conflicts while GET/list show nothing)", async () => {
    const env = await fixtures(w).env("gone");
    await w.ok("DELETE", `/environments/${env.id}`);
    expect((await w.call("GET", `/environments/${env.id}`)).status).toBe(404);
    expect((await w.ok("GET", "/environments")).data).toEqual([]);
    expect((await w.call("POST", "/environments", { json: { name: "gone" } })).status).toBe(409);
    await w.control("POST", "/clock", { advance_seconds: 40 });
    expect((await w.call("POST", "/environments", { json: { name: "gone" } })).status).toBe(409);
    await w.control("POST", "/clock", { advance_seconds: 6 });
    expect((await w.call("POST", "/environments", { json: { name: "gone" } })).status).toBe(200);
  });

  it.each([
    ["self_hosted", { type: "self_hosted" }],
    ["setup_script", { type: "cloud", setup_script: "echo hi" }],
  ])("config %s → 400", async (_n, config) => {
    expect((await w.call("POST", "/environments", { json: { name: "abc", config } })).status).toBe(400);
  });
});

describe("docs/wire/provider-d.md §3.2 vault and credentials", () => {
  it("create vault, add credentials, get / list, delete; secrets never echoed", async () => {
    const v = await w.ok("POST", "/vaults", { display_name: "team", metadata: { a: "1" } });
    expect(v).toMatchObject({ id: expect.stringMatching(/^vlt-/), type: "vault", display_name: "team" });
    const env = await w.ok("POST", `/vaults/${v.id}/credentials`, {
      display_name: "gh",
      auth: { type: "environment_variable", secret_name: "GH_TOKEN", secret_value: "SECRET-env" },
    });
    expect(env.auth).toEqual({
      type: "environment_variable",
      secret_name: "GH_TOKEN",
      networking: { type: "unrestricted" },
    });
    const bearer = await w.ok("POST", `/vaults/${v.id}/credentials`, {
      display_name: "mcp",
      auth: { type: "static_bearer", mcp_server_url: "https://mcp.example.com", token: "SECRET-bearer" },
    });
    expect(await w.ok("GET", `/vaults/${v.id}`)).toEqual(v);
    const list = await w.ok("GET", `/vaults/${v.id}/credentials`);
    expect(list.data.map((c: any) => c.id).sort()).toEqual([env.id, bearer.id].sort());
    expect(JSON.stringify([env, bearer, list])).not.toContain("SECRET");
    expect((await w.ok("GET", "/vaults")).data).toHaveLength(1);
    expect(await w.ok("DELETE", `/vaults/${v.id}`)).toEqual({ id: v.id, type: "vault_deleted" });
    expect((await w.control("GET", "/state")).body.credentials).toEqual([]);
  });

  it("mcp_oauth and injection_location are provider_c only → 400", async () => {
    const v = await fixtures(w).vault();
    const oauth = { type: "mcp_oauth", mcp_server_url: "https://x.example.com", access_token: "a" };
    expect((await w.call("POST", `/vaults/${v.id}/credentials`, { json: { auth: oauth } })).status).toBe(400);
    const inj = {
      type: "environment_variable",
      secret_name: "A",
      secret_value: "b",
      injection_location: { header: true },
    };
    expect((await w.call("POST", `/vaults/${v.id}/credentials`, { json: { auth: inj } })).status).toBe(400);
  });

  it("vault update and credential lifecycle exist upstream (metadata replaced as sent)", async () => {
    const v = await w.ok("POST", "/vaults", { display_name: "team", metadata: { a: "1" } });
    expect((await w.ok("POST", `/vaults/${v.id}`, { metadata: { b: "2" } })).metadata).toEqual({ b: "2" });
    const c = await w.ok("POST", `/vaults/${v.id}/credentials`, {
      auth: { type: "static_bearer", mcp_server_url: "https://mcp.example.com", token: "t" },
    });
    expect(
      (await w.ok("POST", `/vaults/${v.id}/credentials/${c.id}`, { display_name: "x" })).display_name,
    ).toBe("x");
    expect(await w.ok("DELETE", `/vaults/${v.id}/credentials/${c.id}`)).toEqual({
      id: c.id,
      type: "credential_deleted",
    });
  });
});

describe("docs/wire/provider-d.md §3.3 file", () => {
  it.each([
    ["agent", "notes.txt", "text/plain", 200],
    ["user_data", "report.pdf", "application/pdf", 200],
    ["user_data", "notes.txt", "text/plain", 400],
    ["other", "a.md", "text/markdown", 400],
  ])("purpose %s with %s (%s) → %i", async (purpose, name, type, status) => {
    const r = await w.call("POST", "/files", { form: fileForm(name, "content", type, { purpose }) });
    expect(r.status).toBe(status);
    if (status === 200)
      expect(r.body).toMatchObject({
        id: expect.stringMatching(/^file-/),
        filename: name,
        purpose,
        mime_type: type,
      });
  });

  it("purpose is required; get / list / delete", async () => {
    expect((await w.call("POST", "/files", { form: fileForm("a.md", "x") })).status).toBe(400);
    const f = await w.ok("POST", "/files", {
      form: fileForm("a.md", "x", "text/markdown", { purpose: "agent" }),
    });
    expect(await w.ok("GET", `/files/${f.id}`)).toEqual(f);
    expect((await w.ok("GET", "/files")).data).toEqual([f]);
    expect(await w.ok("DELETE", `/files/${f.id}`)).toEqual({ id: f.id, type: "file_deleted" });
  });
});

describe("docs/wire/provider-d.md §3.4 skill", () => {
  it("create: one zip in `files`, named after the folder = frontmatter name; get", async () => {
    const sk = await w.ok("POST", "/skills", {
      form: skillZipForm(
        { "pdf-tools/SKILL.md": skillMd("pdf-tools", "PDFs"), "pdf-tools/run.sh": "echo" },
        "pdf-tools.zip",
      ),
    });
    expect(sk).toMatchObject({
      id: expect.stringMatching(/^skill-/),
      name: "pdf-tools",
      display_title: "pdf-tools",
      description: "PDFs",
      source: "custom",
      latest_version: "1",
    });
    expect(await w.ok("GET", `/skills/${sk.id}`)).toEqual(sk);
    const state = (await w.control("GET", "/state")).body;
    expect(state.skill_versions[0].files.map((f: any) => f.path).sort()).toEqual([
      "pdf-tools/SKILL.md",
      "pdf-tools/run.sh",
    ]);
  });

  it.each([
    ["the files[] multi-part form", () => skillForm({ "s/SKILL.md": skillMd("s") }), "only one zip"],
    [
      "two zips",
      () => {
        const f = skillZipForm({ "s/SKILL.md": skillMd("s") }, "s.zip");
        f.append("files", new Blob([new Uint8Array([1])]), "t.zip");
        return f;
      },
      "only one zip",
    ],
    [
      "a folder ≠ frontmatter name",
      () => skillZipForm({ "s/SKILL.md": skillMd("other") }, "s.zip"),
      "must equal",
    ],
    ["not a zip", () => skillForm({ "s.zip": "not a zip" }, "files"), "zip"],
  ])("create rejected: %s → 400", async (_n, form, message) => {
    const r = await w.call("POST", "/skills", { form: form() });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain(message);
  });
});

describe("docs/wire/provider-d.md §3.5 agent", () => {
  it("create / get / list / update with version / delete", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillZipForm({ "s/SKILL.md": skillMd("s") }, "s.zip") });
    const a = await w.ok("POST", "/agents", {
      name: "helper",
      model: { id: "doubao-seed" },
      system: "sys",
      tools: [
        {
          type: "agent_toolset_20260701",
          default_config: { enabled: false },
          configs: [{ name: "bash", enabled: true, permission_policy: { type: "always_ask" } }],
        },
        { type: "mcp_toolset", mcp_server_name: "docs" },
      ],
      mcp_servers: [{ name: "docs", type: "url", url: "https://mcp.example.com" }],
      skills: [
        { type: "custom", skill_id: sk.id },
        { type: "official", skill_id: "web-search" },
      ],
      metadata: { "agents.project": "p" },
    });
    expect(a).toMatchObject({
      id: expect.stringMatching(/^agent-/),
      version: 1,
      skills: [
        { type: "custom", skill_id: sk.id },
        { type: "official", skill_id: "web-search" },
      ],
    });
    expect(await w.ok("GET", `/agents/${a.id}`)).toEqual(a);
    expect((await w.ok("GET", "/agents?limit=100")).data).toEqual([a]);
    const u = await w.ok("POST", `/agents/${a.id}`, { version: 1, system: "new", metadata: { x: "1" } });
    expect(u).toMatchObject({ version: 2, system: "new", metadata: { x: "1" } });
    const stale = await w.call("POST", `/agents/${a.id}`, { json: { version: 1, system: "lost" } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toEqual(expect.any(String));
    expect(await w.ok("DELETE", `/agents/${a.id}`)).toEqual({ id: a.id, type: "agent_deleted" });
    expect((await w.call("GET", `/agents/${a.id}`)).status).toBe(404);
  });
});

describe("docs/wire/provider-d.md §3.6 memory", () => {
  it("store create / get / list / update (metadata replaced) / delete; no archive", async () => {
    const s = await w.ok("POST", "/memory_stores", { name: "n", description: "d", metadata: { a: "1" } });
    expect(s).toMatchObject({ id: expect.stringMatching(/^memstore-/), type: "memory_store" });
    expect(s).not.toHaveProperty("archived_at");
    expect(await w.ok("GET", `/memory_stores/${s.id}`)).toEqual(s);
    expect((await w.ok("GET", "/memory_stores?limit=10")).data).toEqual([s]);
    expect((await w.ok("POST", `/memory_stores/${s.id}`, { metadata: { b: "2" } })).metadata).toEqual({
      b: "2",
    });
    expect(await w.ok("DELETE", `/memory_stores/${s.id}`)).toEqual({
      id: s.id,
      type: "memory_store_deleted",
    });
  });

  it("memories: absolute paths; create / list (path_prefix, depth) / get / update (last write wins) / delete", async () => {
    const s = await fixtures(w).store();
    const base = `/memory_stores/${s.id}/memories`;
    expect((await w.call("POST", base, { json: { path: "notes/a.md", content: "x" } })).status).toBe(400);
    const m = await w.ok("POST", base, { path: "/notes/a.md", content: "x" });
    expect(m).toMatchObject({ id: expect.stringMatching(/^mem-/), path: "/notes/a.md", content: "x" });
    expect(m).not.toHaveProperty("memory_version_id");
    await w.ok("POST", base, { path: "/notes/deep/b.md", content: "y" });
    const listed = await w.ok("GET", `${base}?path_prefix=/notes/&depth=1&limit=10`);
    expect(listed.data).toEqual([
      expect.objectContaining({ path: "/notes/a.md", content: "x" }),
      { type: "memory_prefix", path: "/notes/deep/" },
    ]);
    expect((await w.call("GET", `${base}?view=basic`)).status).toBe(200);
    expect((await w.ok("POST", `${base}/${m.id}`, { content: "z" })).content).toBe("z");
    const pre = await w.call("POST", `${base}/${m.id}`, {
      json: { content: "q", precondition: { type: "content_sha256", content_sha256: "0" } },
    });
    expect(pre.status).toBe(400);
    expect(await w.ok("GET", `${base}/${m.id}`)).toMatchObject({ content: "z" });
    expect(await w.ok("DELETE", `${base}/${m.id}`)).toEqual({ id: m.id, type: "memory_deleted" });
  });

  it("a path conflict → 409 ResourceConflict", async () => {
    const s = await fixtures(w).store();
    await w.ok("POST", `/memory_stores/${s.id}/memories`, { path: "/a.md", content: "x" });
    const r = await w.call("POST", `/memory_stores/${s.id}/memories`, {
      json: { path: "/a.md", content: "y" },
    });
    expect(r.status).toBe(409);
    expect(r.body).toEqual(errorShape("ResourceConflict"));
  });

  it("batch_create: per-item results; on_conflict fail reports the item, overwrite replaces it", async () => {
    const s = await fixtures(w).store();
    const url = `/memory_stores/${s.id}/memories/batch_create`;
    await w.ok("POST", `/memory_stores/${s.id}/memories`, { path: "/a.md", content: "old" });
    const failed = await w.ok("POST", url, {
      items: [
        { path: "/a.md", content: "new" },
        { path: "/b.md", content: "b" },
        { path: "relative", content: "c" },
      ],
      on_conflict: "fail",
    });
    expect(failed.results).toEqual([
      { path: "/a.md", error: { type: "ResourceConflict", message: expect.any(String) } },
      { path: "/b.md", memory: expect.objectContaining({ path: "/b.md", content: "b" }) },
      { path: "relative", error: { type: "InvalidParameter", message: expect.any(String) } },
    ]);
    const over = await w.ok("POST", url, {
      items: [{ path: "/a.md", content: "new" }],
      on_conflict: "overwrite",
    });
    expect(over.results[0].memory).toMatchObject({ path: "/a.md", content: "new" });
    const all = await w.ok("GET", `/memory_stores/${s.id}/memories`);
    expect(all.data.map((m: any) => m.path)).toEqual(["/a.md", "/b.md"]);
    expect((await w.call("POST", url, { json: { items: [] } })).status).toBe(400);
  });
});

describe("docs/wire/provider-d.md §5 pagination and §6 errors", () => {
  it("limit + page → {data, next_page}; the last page has next_page null; limit over 100 → 400", async () => {
    for (let i = 0; i < 3; i++) await fixtures(w).vault(`v${i}`);
    const p1 = await w.ok("GET", "/vaults?limit=2");
    expect(Object.keys(p1).sort()).toEqual(["data", "next_page"]);
    const p2 = await w.ok("GET", `/vaults?limit=2&page=${p1.next_page}`);
    expect(p2.data).toHaveLength(1);
    expect(p2.next_page).toBeNull();
    expect((await w.call("GET", "/vaults?limit=101")).body).toEqual(errorShape("InvalidParameter"));
  });

  it.each([
    [404, "ResourceNotFound"],
    [429, "RateLimitExceeded"],
    [500, "InternalServiceError"],
    [503, "ServiceUnavailable"],
  ])("an injected %i renders {error:{code:%s, message}}", async (status, code) => {
    await w.control("PUT", "/faults", { rules: [{ nth: 1, action: { type: "status", status } }] });
    const r = await w.call("GET", "/agents");
    expect(r.status).toBe(status);
    expect(r.body).toEqual(errorShape(code));
  });

  it("a missing object → 404 ResourceNotFound", async () => {
    expect((await w.call("GET", "/agents/agent-missing")).body).toEqual(errorShape("ResourceNotFound"));
  });
});
