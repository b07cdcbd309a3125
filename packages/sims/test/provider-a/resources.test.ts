import { describe, expect, it } from "vitest";
import { client } from "../wire-client.js";
import { ERROR, KEY, upload, useProviderA } from "./setup.js";

const t = useProviderA();

async function env(name = "e1", extra: Record<string, unknown> = {}) {
  return t.api("POST", "/environments", {
    name,
    scope: "organization",
    config: { type: "cloud", networking: { type: "unrestricted" } },
    metadata: { "agents.project": "p" },
    ...extra,
  });
}

describe("provider_a transport and errors (docs/wire/provider-a.md §1, §6)", () => {
  it.each([
    ["no Authorization header", {}],
    ["an unknown key", { authorization: "Bearer nope" }],
  ])("answers 401 {type:error, error:{code, message}} for %s", async (_l, headers) => {
    const r = await client(t.sim.url, headers as Record<string, string>)("GET", "/agents");
    expect(r.status).toBe(401);
    expect(r.body).toEqual(ERROR);
    expect(r.body.error.code).toBe("unauthorized");
  });

  it("lives under /api/v1/agentstudio, sets x-request-id, takes seeded keys", async () => {
    expect(t.sim.url.endsWith("/api/v1/agentstudio")).toBe(true);
    await t.control("POST", "/seed", { api_keys: ["k2"] });
    const r = await client(t.sim.url, { authorization: "Bearer k2" })("GET", "/agents");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toEqual(expect.any(String));
  });

  it("answers 404 not_found_error for a missing object and faults in the same shape", async () => {
    const r = await t.api("GET", "/agents/agent_missing");
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("not_found_error");
    await t.control("PUT", "/faults", { rules: [{ nth: 1, action: { type: "status", status: 500 } }] });
    const f = await t.api("GET", "/agents");
    expect(f.body).toEqual({ type: "error", error: { code: "internal", message: "simulated failure" } });
  });

  it("writes RFC 3339 timestamps with the +08:00 offset", async () => {
    expect((await env()).body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+08:00$/);
  });
});

describe("provider_a pagination (docs/wire/provider-a.md §2)", () => {
  it("pages with limit + page → {data, next_page}, no has_more, null next_page on the last page", async () => {
    for (let i = 0; i < 5; i++) await env(`e${i}`);
    const names: string[] = [];
    let page: string | null = null;
    do {
      const r = await t.api("GET", `/environments?limit=2${page ? `&page=${page}` : ""}`);
      expect(Object.keys(r.body).sort()).toEqual(["data", "next_page"]);
      names.push(...r.body.data.map((e: any) => e.name));
      page = r.body.next_page;
    } while (page);
    expect(names).toEqual(["e0", "e1", "e2", "e3", "e4"]);
  });

  it.each([["0"], ["101"], ["abc"]])("rejects limit=%s", async (limit) => {
    expect((await t.api("GET", `/environments?limit=${limit}`)).status).toBe(400);
  });
});

describe("provider_a conflicts (docs/wire/provider-a.md §6)", () => {
  it.each([
    ["environments", (n: string) => env(n)],
    ["agents", (n: string) => t.api("POST", "/agents", { name: n, model: { id: "qwen-max" } })],
  ])(
    "answers a duplicate %s name with 409, code 11300026, 'already exists' in EN and ZH",
    async (_k, create) => {
      expect((await create("same")).status).toBe(200);
      const r = await create("same");
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe("11300026");
      expect(r.body.error.message).toMatch(/already exists/i);
      expect(r.body.error.message).toContain("已存在");
    },
  );
});

describe("provider_a environments (docs/wire/provider-a.md §3.1)", () => {
  it("creates, reads, updates with the full body, deletes", async () => {
    const e = (
      await env("e", {
        description: "d",
        config: { type: "cloud", packages: { pip: ["rich"], cargo: ["rg"] } },
      })
    ).body;
    expect(e).toMatchObject({
      id: expect.stringMatching(/^env_/),
      type: "environment",
      scope: "organization",
      description: "d",
    });
    expect(e.config).toEqual({
      type: "cloud",
      networking: { type: "unrestricted" },
      packages: { pip: ["rich"], cargo: ["rg"] },
    });
    const u = await t.api("POST", `/environments/${e.id}`, {
      name: "e",
      config: { type: "cloud" },
      metadata: {},
    });
    expect(u.body).not.toHaveProperty("description");
    expect((await t.api("DELETE", `/environments/${e.id}`)).body).toEqual({
      id: e.id,
      type: "environment_deleted",
    });
    expect((await t.api("GET", `/environments/${e.id}`)).status).toBe(404);
  });

  it.each([
    [
      "limited networking (HTTP 500 upstream)",
      { type: "cloud", networking: { type: "limited", allowed_hosts: ["a.com"] } },
      500,
    ],
    ["self_hosted", { type: "self_hosted" }, 400],
    ["a setup_script", { type: "cloud", setup_script: "echo" }, 400],
  ])("rejects %s", async (_l, config, status) => {
    const r = await t.api("POST", "/environments", { name: "x", config });
    expect(r.status).toBe(status);
    expect(r.body).toEqual(ERROR);
  });
});

describe("provider_a vaults and credentials (docs/wire/provider-a.md §3.2)", () => {
  async function vault() {
    const v = await t.api("POST", "/vaults", { display_name: "main", metadata: { k: "v" } });
    expect(v.body.id).toMatch(/^vlt_/);
    return v.body;
  }

  it("fills injection defaults (all hosts, header on, body off) and never reads the secret back", async () => {
    const v = await vault();
    const c = await t.api("POST", `/vaults/${v.id}/credentials`, {
      display_name: "gh",
      auth: { type: "environment_variable", secret_name: "GH_TOKEN", secret_value: "s3cr3t" },
    });
    expect(c.body).toMatchObject({ id: expect.stringMatching(/^vcrd_/), type: "credential" });
    expect(c.body.auth).toEqual({
      type: "environment_variable",
      secret_name: "GH_TOKEN",
      networking: { type: "limited", allowed_hosts: ["*"] },
      injection_location: { header: true, body: false },
    });
    const dump = JSON.stringify((await t.control("GET", "/state")).body);
    expect(JSON.stringify(c.body) + dump).not.toContain("s3cr3t");
  });

  it.each([
    [
      "explicit hosts and body injection",
      {
        networking: { type: "limited", allowed_hosts: ["api.github.com", "*.example.com"] },
        injection_location: { header: false, body: true },
      },
      200,
    ],
    ["legacy unrestricted", { networking: { type: "unrestricted" } }, 200],
    ["limited without hosts", { networking: { type: "limited" } }, 400],
  ])("credential with %s → %i", async (_l, extra, status) => {
    const v = await vault();
    const r = await t.api("POST", `/vaults/${v.id}/credentials`, {
      display_name: "c",
      auth: { type: "environment_variable", secret_name: "X", secret_value: "y", ...extra },
    });
    expect(r.status).toBe(status);
    if (status === 200) {
      expect(r.body.auth.networking).toEqual(extra.networking);
      if ("injection_location" in extra)
        expect(r.body.auth.injection_location).toEqual(extra.injection_location);
    }
  });

  it("rejects static_bearer with CREDENTIAL_AUTH_TYPE_ERROR and inline credentials on vault create", async () => {
    const v = await vault();
    const r = await t.api("POST", `/vaults/${v.id}/credentials`, {
      display_name: "m",
      auth: { type: "static_bearer", token: "t", mcp_server_url: "https://m" },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("CREDENTIAL_AUTH_TYPE_ERROR");
    expect((await t.api("POST", "/vaults", { display_name: "x", credentials: [] })).status).toBe(400);
  });

  it("updates, archives (readable, hidden, read-only) and deletes vaults and credentials", async () => {
    const v = await vault();
    const c = (
      await t.api("POST", `/vaults/${v.id}/credentials`, {
        display_name: "c",
        auth: { type: "environment_variable", secret_name: "A", secret_value: "b" },
      })
    ).body;
    expect(
      (await t.api("POST", `/vaults/${v.id}/credentials/${c.id}`, { display_name: "c2" })).body.display_name,
    ).toBe("c2");
    expect((await t.api("POST", `/vaults/${v.id}/credentials/${c.id}/archive`)).body.archived_at).toEqual(
      expect.any(String),
    );
    expect((await t.api("GET", `/vaults/${v.id}/credentials`)).body.data).toHaveLength(0);
    expect((await t.api("GET", `/vaults/${v.id}/credentials?include_archived=true`)).body.data).toHaveLength(
      1,
    );
    expect((await t.api("POST", `/vaults/${v.id}/credentials/${c.id}`, { display_name: "c3" })).status).toBe(
      400,
    );
    expect((await t.api("POST", `/vaults/${v.id}`, { display_name: "renamed" })).body.display_name).toBe(
      "renamed",
    );
    await t.api("POST", `/vaults/${v.id}/archive`);
    expect((await t.api("GET", "/vaults")).body.data).toHaveLength(0);
    expect((await t.api("GET", `/vaults/${v.id}`)).body.archived_at).toEqual(expect.any(String));
    expect((await t.api("DELETE", `/vaults/${v.id}`)).body).toEqual({ id: v.id, type: "vault_deleted" });
    expect((await t.control("GET", "/state")).body.credentials).toHaveLength(0);
  });
});

describe("provider_a files and the content audit (docs/wire/provider-a.md §3.3)", () => {
  it("starts checking, turns available on the second GET (one pending poll), deletes", async () => {
    const f = await upload(t.api, "notes.md", new TextEncoder().encode("# hi"), "text/markdown");
    expect(f).toMatchObject({
      id: expect.stringMatching(/^file_/),
      type: "file",
      status: "checking",
      filename: "notes.md",
      mime_type: "text/markdown",
      size_bytes: 4,
    });
    expect((await t.api("GET", `/files/${f.id}`)).body.status).toBe("checking");
    expect((await t.api("GET", `/files/${f.id}`)).body.status).toBe("available");
    expect((await t.api("DELETE", `/files/${f.id}`)).body).toEqual({ id: f.id, type: "file_deleted" });
  });

  it("turns available once the simulated clock passes the audit time, without polls", async () => {
    await upload(t.api, "a.txt", new Uint8Array([1]));
    await t.control("POST", "/clock", { advance_seconds: 15 });
    expect((await t.api("GET", "/files")).body.data[0].status).toBe("available");
  });

  it.each([
    ["eicar.txt", "rejected"],
    ["setup.exe", "type_rejected"],
  ])("ends %s as %s", async (name, status) => {
    const f = await upload(t.api, name, new Uint8Array([1]));
    await t.api("GET", `/files/${f.id}`);
    expect((await t.api("GET", `/files/${f.id}`)).body.status).toBe(status);
  });

  it("finishes immediately when seeded with zero audit time and polls", async () => {
    await t.control("POST", "/seed", { settings: { file_audit_ms: 0, file_audit_polls: 0 } });
    expect((await upload(t.api, "a.txt", new Uint8Array([1]))).status).toBe("available");
  });

  it("accepts a bearer key only (no x-api-key)", async () => {
    const r = await client(t.sim.url, { "x-api-key": KEY })("GET", "/files");
    expect(r.status).toBe(401);
  });
});
