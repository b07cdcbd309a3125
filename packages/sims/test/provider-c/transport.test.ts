import { describe, expect, it } from "vitest";
import { fileForm, skillForm, skillMd, useWire } from "../support/wire.js";
import { FILES, fixtures, KEY, MANAGED, MEMORY, openC, SKILLS } from "./setup.js";

const w = useWire(openC);

const errorShape = (type: string) => ({
  type: "error",
  error: expect.objectContaining({ type, message: expect.any(String) }),
  request_id: expect.stringMatching(/^req_/),
});

describe("docs/wire/provider-c.md §1 transport", () => {
  it("serves the API under /v1", () => {
    expect(w.sim.url).toMatch(/\/v1$/);
  });

  it.each([
    ["missing key", { "anthropic-version": "2023-06-01", "anthropic-beta": MANAGED }],
    [
      "wrong x-api-key",
      { "x-api-key": "nope", "anthropic-version": "2023-06-01", "anthropic-beta": MANAGED },
    ],
    [
      "wrong Bearer key",
      { authorization: "Bearer nope", "anthropic-version": "2023-06-01", "anthropic-beta": MANAGED },
    ],
    [
      "Basic instead of Bearer",
      { authorization: `Basic ${KEY}`, "anthropic-version": "2023-06-01", "anthropic-beta": MANAGED },
    ],
    [
      "a good x-api-key with a wrong Bearer",
      {
        "x-api-key": KEY,
        authorization: "Bearer nope",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": MANAGED,
      },
    ],
  ])("auth: %s → 401 authentication_error", async (_name, headers) => {
    const r = await w.call("GET", "/agents", { headers });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(errorShape("authentication_error"));
  });

  it.each([
    ["x-api-key (docs/wire/provider-c.md §1)", { "x-api-key": KEY }],
    ["Authorization: Bearer (what SDK 1.12 sends for apiKey)", { authorization: `Bearer ${KEY}` }],
    ["both", { "x-api-key": KEY, authorization: `Bearer ${KEY}` }],
  ])("auth: the key as %s → 200", async (_name, auth) => {
    const r = await w.call("GET", "/agents", {
      headers: { ...auth, "anthropic-version": "2023-06-01", "anthropic-beta": MANAGED },
    });
    expect(r.status).toBe(200);
  });

  it("auth: a key seeded through /_sim/seed is accepted, the default one keeps working", async () => {
    await w.control("POST", "/seed", { api_keys: ["seeded-key"] });
    const seeded = await w.call("GET", "/agents", { extraHeaders: { "x-api-key": "seeded-key" } });
    expect(seeded.status).toBe(200);
    expect((await w.call("GET", "/agents")).status).toBe(200);
  });

  it.each([
    ["2023-06-01", "docs/wire/provider-c.md §1"],
    ["2026-10-21", "SDK 1.12 default"],
  ])("version header %s (%s) → 200", async (version) => {
    const r = await w.call("GET", "/agents", { extraHeaders: { "anthropic-version": version } });
    expect(r.status).toBe(200);
  });

  it.each([
    ["missing", ""],
    ["wrong", "2024-01-01"],
  ])("version header %s → 400 invalid_request_error", async (_n, version) => {
    const r = await w.call("GET", "/agents", { extraHeaders: { "anthropic-version": version } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(errorShape("invalid_request_error"));
    expect(r.body.error.message).toContain("anthropic-version");
  });

  it.each([
    ["/agents", MANAGED],
    ["/environments", MANAGED],
    ["/sessions", MANAGED],
    ["/vaults", MANAGED],
    ["/deployments", MANAGED],
    ["/deployment_runs", MANAGED],
    ["/memory_stores", MEMORY],
  ])("beta header: GET %s needs %s (missing → 400 naming it)", async (path, beta) => {
    const missing = await w.call("GET", path, { extraHeaders: { "anthropic-beta": "" } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(errorShape("invalid_request_error"));
    expect(missing.body.error.message).toContain(beta);
    const ok = await w.call("GET", path, { extraHeaders: { "anthropic-beta": `${beta},some-other-beta` } });
    expect(ok.status).toBe(200);
  });

  it.each([
    ["/skills", SKILLS],
    ["/files", FILES],
    ["/models", "none"],
  ])(
    "beta header: GET %s works without one (the SDK sends none by default), with %s, or with another",
    async (path, beta) => {
      expect((await w.call("GET", path, { extraHeaders: { "anthropic-beta": "" } })).status).toBe(200);
      if (beta !== "none")
        expect((await w.call("GET", path, { extraHeaders: { "anthropic-beta": beta } })).status).toBe(200);
      expect((await w.call("GET", path, { extraHeaders: { "anthropic-beta": MANAGED } })).status).toBe(200);
    },
  );

  it("beta header: REF's combined default list works for every managed-agents family", async () => {
    const combined = `${MANAGED},${SKILLS},${FILES}`;
    for (const path of ["/agents", "/skills", "/files"]) {
      expect((await w.call("GET", path, { extraHeaders: { "anthropic-beta": combined } })).status).toBe(200);
    }
  });

  it("memory-store beta: either value alone is accepted, the two combined are rejected", async () => {
    expect(
      (await w.call("GET", "/memory_stores", { extraHeaders: { "anthropic-beta": MEMORY } })).status,
    ).toBe(200);
    expect(
      (await w.call("GET", "/memory_stores", { extraHeaders: { "anthropic-beta": MANAGED } })).status,
    ).toBe(200);
    const both = await w.call("GET", "/memory_stores", {
      extraHeaders: { "anthropic-beta": `${MANAGED},${MEMORY}` },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain("cannot be combined");
  });

  it("workspace: an anthropic-workspace-id header is accepted (keys spanning workspaces send it)", async () => {
    const r = await w.call("GET", "/agents", { extraHeaders: { "anthropic-workspace-id": "wrkspc_01abc" } });
    expect(r.status).toBe(200);
  });

  it("models need no beta header and use the has_more page shape", async () => {
    const r = await w.call("GET", "/models", { extraHeaders: { "anthropic-beta": "" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      has_more: false,
      data: expect.arrayContaining([expect.objectContaining({ type: "model" })]),
    });
  });

  it("multipart: files use field `file`, skills repeated `files[]`", async () => {
    expect((await w.call("POST", "/files", { form: fileForm("a.md", "# a") })).status).toBe(200);
    const skill = await w.call("POST", "/skills", { form: skillForm({ "s1/SKILL.md": skillMd("s1") }) });
    expect(skill.status).toBe(200);
  });
});

describe("docs/wire/provider-c.md §2 common conventions", () => {
  it.each([
    ["17 pairs", Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"]))],
    ["a 65-char key", { ["k".repeat(65)]: "v" }],
    ["a 513-char value", { k: "v".repeat(513) }],
    ["a non-string value", { k: 1 }],
  ])("metadata limits: %s → 400", async (_n, metadata) => {
    const r = await w.call("POST", "/environments", { json: { name: "e", metadata } });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("invalid_request_error");
  });

  it("metadata: 16 pairs with 64-char keys and 512-char values are accepted", async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => [`${i}`.padEnd(64, "k"), "v".repeat(512)]),
    );
    expect((await w.call("POST", "/environments", { json: { name: "e", metadata } })).status).toBe(200);
  });

  it("pagination: limit + page → {data, next_page}; the last page has next_page null; no item twice", async () => {
    for (let i = 0; i < 5; i++) await fixtures(w).env(`env-${i}`);
    const seen: string[] = [];
    let page: string | null = null;
    let pages = 0;
    do {
      const r: any = await w.ok("GET", `/environments?limit=2${page ? `&page=${page}` : ""}`);
      expect(Object.keys(r).sort()).toEqual(["data", "next_page"]);
      seen.push(...r.data.map((e: any) => e.id));
      page = r.next_page;
      pages++;
    } while (page);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
  });

  it("pagination: newest first; a delete between pages neither skips nor repeats", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await fixtures(w).env(`env-${i}`)).id);
      await w.control("POST", "/clock", { advance_ms: 10 });
    }
    const first = await w.ok("GET", "/environments?limit=2");
    expect(first.data.map((e: any) => e.id)).toEqual([ids[3], ids[2]]);
    await w.ok("DELETE", `/environments/${ids[3]}`);
    const second = await w.ok("GET", `/environments?limit=2&page=${first.next_page}`);
    expect(second.data.map((e: any) => e.id)).toEqual([ids[1], ids[0]]);
    expect(second.next_page).toBeNull();
  });

  it("pagination: default page size 20, maximum 100, out of range → 400, bad cursor → 400", async () => {
    for (let i = 0; i < 21; i++) await fixtures(w).vault(`v${i}`);
    const def = await w.ok("GET", "/vaults");
    expect(def.data).toHaveLength(20);
    expect(def.next_page).toEqual(expect.any(String));
    expect((await w.ok("GET", "/vaults?limit=100")).data).toHaveLength(21);
    for (const q of ["limit=101", "limit=0", "limit=x", "page=garbage"]) {
      const r = await w.call("GET", `/vaults?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.type).toBe("invalid_request_error");
    }
  });

  it("list filter created_at[gte]/[lte] bounds the listing", async () => {
    const old = await fixtures(w).env("old");
    await w.control("POST", "/clock", { advance_seconds: 3600 });
    const cut = new Date(Date.parse(old.created_at) + 1800_000).toISOString();
    const recent = await fixtures(w).env("recent");
    const after = await w.ok("GET", `/environments?created_at[gte]=${cut}`);
    expect(after.data.map((e: any) => e.id)).toEqual([recent.id]);
    const before = await w.ok("GET", `/environments?created_at[lte]=${cut}`);
    expect(before.data.map((e: any) => e.id)).toEqual([old.id]);
  });

  it.each([
    ["environment", "/environments", { name: "e" }, /^env_/],
    ["vault", "/vaults", { display_name: "v" }, /^vlt_/],
    ["agent", "/agents", { name: "a", model: "m" }, /^agent_/],
    ["memory store", "/memory_stores", { name: "m" }, /^memstore_/],
  ])("id prefix: %s", async (_kind, path, json, prefix) => {
    expect((await w.ok("POST", path, json)).id).toMatch(prefix);
  });

  it("id prefixes of nested and derived objects", async () => {
    const f = fixtures(w);
    const vault = await f.vault();
    const cred = await w.ok("POST", `/vaults/${vault.id}/credentials`, {
      auth: { type: "static_bearer", token: "t", mcp_server_url: "https://mcp.example.com" },
    });
    expect(cred.id).toMatch(/^vcrd_/);
    expect((await w.ok("POST", "/files", { form: fileForm("a.md", "x") })).id).toMatch(/^file_/);
    expect((await w.ok("POST", "/skills", { form: skillForm({ "sk/SKILL.md": skillMd("sk") }) })).id).toMatch(
      /^skill_/,
    );
    const store = await f.store();
    const mem = await w.ok("POST", `/memory_stores/${store.id}/memories`, { path: "/a.md", content: "x" });
    expect(mem.id).toMatch(/^mem_/);
    expect(mem.memory_version_id).toMatch(/^memver_/);
    const env = await f.env();
    const agent = await f.agent();
    const session = await w.ok("POST", "/sessions", {
      agent: agent.id,
      environment_id: env.id,
      resources: [{ type: "memory_store", memory_store_id: store.id }],
    });
    expect(session.id).toMatch(/^sesn_/);
    expect(session.resources[0].id).toMatch(/^sesrsc_/);
    const dep = await w.ok("POST", "/deployments", {
      name: "d",
      agent: agent.id,
      environment_id: env.id,
      initial_events: [{ type: "user.message", content: [{ type: "text", text: "hi" }] }],
    });
    expect(dep.id).toMatch(/^depl_/);
    expect((await w.ok("POST", `/deployments/${dep.id}/run`)).id).toMatch(/^drun_/);
  });

  it("error body: {type:'error', error:{type, message}, request_id} for 404; request_id = request-id header", async () => {
    const r = await w.call("GET", "/agents/agent_missing");
    expect(r.status).toBe(404);
    expect(r.body).toEqual(errorShape("not_found_error"));
    expect(r.headers.get("request-id")).toBe(r.body.request_id);
    const ok = await w.call("GET", "/agents");
    expect(ok.headers.get("request-id")).toMatch(/^req_/);
  });

  it.each([
    [503, "api_error"],
    [529, "overloaded_error"],
    [500, "api_error"],
    [403, "permission_error"],
  ])("error body: an injected %i renders as %s", async (status, type) => {
    await w.control("PUT", "/faults", { rules: [{ nth: 1, action: { type: "status", status } }] });
    const r = await w.call("GET", "/agents");
    expect(r.status).toBe(status);
    expect(r.body).toEqual(errorShape(type));
  });

  it("error body: an injected 429 renders as rate_limit_error with Retry-After", async () => {
    await w.control("PUT", "/faults", {
      rules: [{ nth: 1, action: { type: "rate_limit", retryAfterSeconds: 3 } }],
    });
    const r = await w.call("GET", "/agents");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("3");
    expect(r.body).toEqual(errorShape("rate_limit_error"));
  });

  it("unknown fields are refused (400), so a mistyped field never passes silently", async () => {
    const r = await w.call("POST", "/agents", { json: { name: "a", model: "m", instructions: "x" } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("instructions");
  });
});
