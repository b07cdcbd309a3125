import { describe, expect, it } from "vitest";
import type { Wire } from "../support/wire.js";
import { fileForm, skillForm, skillMd, userText as text, useWire } from "../support/wire.js";
import { fixtures, openC } from "./setup.js";

const w = useWire(openC);

/** One row per archivable kind: how to make one, where it lives, and a valid update body. */
const ARCHIVABLE: [string, (w: Wire) => Promise<{ base: string; list: string; update: object }>][] = [
  [
    "agent",
    async (w) => ({
      base: `/agents/${(await fixtures(w).agent()).id}`,
      list: "/agents",
      update: { version: 1, name: "x" },
    }),
  ],
  [
    "environment",
    async (w) => ({
      base: `/environments/${(await fixtures(w).env()).id}`,
      list: "/environments",
      update: { name: "x" },
    }),
  ],
  [
    "vault",
    async (w) => ({
      base: `/vaults/${(await fixtures(w).vault()).id}`,
      list: "/vaults",
      update: { display_name: "x" },
    }),
  ],
  [
    "credential",
    async (w) => {
      const v = await fixtures(w).vault();
      const c = await w.ok("POST", `/vaults/${v.id}/credentials`, {
        auth: { type: "static_bearer", token: "t", mcp_server_url: "https://mcp.example.com" },
      });
      return {
        base: `/vaults/${v.id}/credentials/${c.id}`,
        list: `/vaults/${v.id}/credentials`,
        update: { display_name: "x" },
      };
    },
  ],
  [
    "memory store",
    async (w) => ({
      base: `/memory_stores/${(await fixtures(w).store()).id}`,
      list: "/memory_stores",
      update: { name: "x" },
    }),
  ],
  [
    "session",
    async (w) => {
      const f = fixtures(w);
      const s = await w.ok("POST", "/sessions", {
        agent: (await f.agent()).id,
        environment_id: (await f.env()).id,
      });
      return { base: `/sessions/${s.id}`, list: "/sessions", update: { title: "x" } };
    },
  ],
  [
    "deployment",
    async (w) => {
      const f = fixtures(w);
      const d = await w.ok("POST", "/deployments", {
        name: "d",
        agent: (await f.agent()).id,
        environment_id: (await f.env()).id,
        initial_events: [text("go")],
      });
      return { base: `/deployments/${d.id}`, list: "/deployments", update: { name: "x" } };
    },
  ],
];

describe("docs/wire/provider-c.md §2 archive semantics", () => {
  it.each(ARCHIVABLE)(
    "%s: archived stays readable, rejects updates, hides from lists unless include_archived",
    async (_k, make) => {
      const { base, list, update } = await make(w);
      const archived = await w.ok("POST", `${base}/archive`);
      expect(archived.archived_at).toEqual(expect.any(String));
      expect((await w.ok("GET", base)).archived_at).toBe(archived.archived_at);
      const upd = await w.call("POST", base, { json: update });
      expect(upd.status).toBe(400);
      expect(upd.body.error.type).toBe("invalid_request_error");
      const id = base.split("/").pop();
      expect((await w.ok("GET", list)).data.map((o: any) => o.id)).not.toContain(id);
      expect((await w.ok("GET", `${list}?include_archived=true`)).data.map((o: any) => o.id)).toContain(id);
    },
  );
});

/** One row per hard-deletable kind: create, then DELETE answers {id, type:"<kind>_deleted"} and GET 404s. */
const DELETABLE: [string, string, (w: Wire) => Promise<string>][] = [
  ["environment", "environment_deleted", async (w) => `/environments/${(await fixtures(w).env()).id}`],
  ["vault", "vault_deleted", async (w) => `/vaults/${(await fixtures(w).vault()).id}`],
  [
    "credential",
    "vault_credential_deleted",
    async (w) => {
      const v = await fixtures(w).vault();
      const c = await w.ok("POST", `/vaults/${v.id}/credentials`, {
        auth: { type: "static_bearer", token: "t", mcp_server_url: "https://mcp.example.com" },
      });
      return `/vaults/${v.id}/credentials/${c.id}`;
    },
  ],
  ["memory store", "memory_store_deleted", async (w) => `/memory_stores/${(await fixtures(w).store()).id}`],
  [
    "memory",
    "memory_deleted",
    async (w) => {
      const s = await fixtures(w).store();
      const m = await w.ok("POST", `/memory_stores/${s.id}/memories`, { path: "/a.md", content: "x" });
      return `/memory_stores/${s.id}/memories/${m.id}`;
    },
  ],
  [
    "file",
    "file_deleted",
    async (w) => `/files/${(await w.ok("POST", "/files", { form: fileForm("a.md", "x") })).id}`,
  ],
  [
    "session",
    "session_deleted",
    async (w) => {
      const f = fixtures(w);
      return `/sessions/${(await w.ok("POST", "/sessions", { agent: (await f.agent()).id, environment_id: (await f.env()).id })).id}`;
    },
  ],
];

describe("docs/wire/provider-c.md §2 hard delete", () => {
  it.each(DELETABLE)(
    "%s: DELETE → {id, type:%s}, then GET 404 and a second DELETE 404",
    async (_k, type, make) => {
      const path = await make(w);
      const id = path.split("/").pop();
      expect(await w.ok("DELETE", path)).toEqual({ id, type });
      expect((await w.call("GET", path)).status).toBe(404);
      expect((await w.call("DELETE", path)).status).toBe(404);
    },
  );

  it.each([
    ["agents", async (w: Wire) => `/agents/${(await fixtures(w).agent()).id}`],
    [
      "deployments",
      async (w: Wire) => {
        const f = fixtures(w);
        const d = await w.ok("POST", "/deployments", {
          name: "d",
          agent: (await f.agent()).id,
          environment_id: (await f.env()).id,
          initial_events: [text("x")],
        });
        return `/deployments/${d.id}`;
      },
    ],
  ])("no DELETE for %s (archive only): 404 and the object survives", async (_k, make) => {
    const path = await make(w);
    const r = await w.call("DELETE", path);
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe("not_found_error");
    expect((await w.call("GET", path)).status).toBe(200);
  });

  it("skills: delete every version, then the skill; deleting a skill with versions fails", async () => {
    const sk = await w.ok("POST", "/skills", { form: skillForm({ "demo/SKILL.md": skillMd("demo") }) });
    const blocked = await w.call("DELETE", `/skills/${sk.id}`);
    expect(blocked.status).toBe(400);
    expect(blocked.body.error.message).toContain("version");
    const versions = await w.ok("GET", `/skills/${sk.id}/versions`);
    for (const v of versions.data) await w.ok("DELETE", `/skills/${sk.id}/versions/${v.version}`);
    expect(await w.ok("DELETE", `/skills/${sk.id}`)).toEqual({ id: sk.id, type: "skill_deleted" });
    expect((await w.call("GET", `/skills/${sk.id}`)).status).toBe(404);
  });
});

describe("docs/wire/provider-c.md §3.1 environment", () => {
  it("create / get / list / update / delete with the documented body", async () => {
    const env = await w.ok("POST", "/environments", {
      name: "build",
      description: "ci",
      metadata: { "agents.project": "p", "agents.resource": "build" },
      config: {
        type: "cloud",
        networking: { type: "limited", allowed_hosts: ["api.example.com"], allow_mcp_servers: true },
        packages: { pip: ["requests"], cargo: ["ripgrep"], gem: ["rake"], go: ["x/y"] },
      },
    });
    expect(env).toMatchObject({
      type: "environment",
      name: "build",
      description: "ci",
      archived_at: null,
      config: {
        type: "cloud",
        networking: {
          type: "limited",
          allowed_hosts: ["api.example.com"],
          allow_mcp_servers: true,
          allow_package_managers: false,
        },
        packages: { type: "packages", pip: ["requests"], cargo: ["ripgrep"], npm: [] },
      },
    });
    expect(await w.ok("GET", `/environments/${env.id}`)).toEqual(env);
    const updated = await w.ok("POST", `/environments/${env.id}`, {
      name: "build2",
      metadata: { "agents.resource": null, extra: "1" },
      config: { type: "cloud" },
    });
    expect(updated.name).toBe("build2");
    expect(updated.metadata).toEqual({ "agents.project": "p", extra: "1" });
    expect(updated.config.networking).toEqual({ type: "unrestricted" });
    expect((await w.ok("GET", "/environments")).data).toHaveLength(1);
  });

  it("names are not unique: two environments with one name both exist (no conflict)", async () => {
    await fixtures(w).env("same");
    await fixtures(w).env("same");
    expect((await w.ok("GET", "/environments")).data).toHaveLength(2);
  });

  it.each([
    ["setup_script", { type: "cloud", setup_script: "echo" }],
    ["unknown networking", { type: "cloud", networking: { type: "open" } }],
    ["unknown config type", { type: "docker" }],
    ["packages not a list", { type: "cloud", packages: { pip: "requests" } }],
  ])("config rejected: %s → 400", async (_n, config) => {
    expect((await w.call("POST", "/environments", { json: { name: "e", config } })).status).toBe(400);
  });

  it("self_hosted config is accepted by the API", async () => {
    expect(
      (await w.ok("POST", "/environments", { name: "e", config: { type: "self_hosted" } })).config,
    ).toEqual({
      type: "self_hosted",
    });
  });
});

describe("docs/wire/provider-c.md §3.2 vault and credentials", () => {
  it("vault create / get / list / update", async () => {
    const v = await w.ok("POST", "/vaults", { display_name: "Team", metadata: { a: "1" } });
    expect(v).toMatchObject({ type: "vault", display_name: "Team", metadata: { a: "1" }, archived_at: null });
    expect(await w.ok("GET", `/vaults/${v.id}`)).toEqual(v);
    expect((await w.ok("POST", `/vaults/${v.id}`, { display_name: "Team 2" })).display_name).toBe("Team 2");
  });

  it.each([
    [
      "static_bearer",
      { type: "static_bearer", token: "s3cret-token", mcp_server_url: "https://mcp.example.com/sse" },
      { type: "static_bearer", mcp_server_url: "https://mcp.example.com/sse" },
    ],
    [
      "environment_variable",
      {
        type: "environment_variable",
        secret_name: "API_TOKEN",
        secret_value: "s3cret-token",
        networking: { type: "limited", allowed_hosts: ["api.example.com", "10.0.0.1", "*.example.org"] },
        injection_location: { header: true, body: true },
      },
      {
        type: "environment_variable",
        secret_name: "API_TOKEN",
        networking: { type: "limited", allowed_hosts: ["api.example.com", "10.0.0.1", "*.example.org"] },
        injection_location: { header: true, body: true },
      },
    ],
    [
      "mcp_oauth",
      {
        type: "mcp_oauth",
        mcp_server_url: "https://mcp.example.com",
        access_token: "s3cret-token",
        expires_at: "2099-01-01T00:00:00Z",
      },
      { type: "mcp_oauth", mcp_server_url: "https://mcp.example.com", expires_at: "2099-01-01T00:00:00Z" },
    ],
  ])("credential %s: created, secret never echoed on create/get/list", async (_t, auth, shown) => {
    const v = await fixtures(w).vault();
    const c = await w.ok("POST", `/vaults/${v.id}/credentials`, { display_name: "c", auth });
    expect(c).toMatchObject({ type: "vault_credential", vault_id: v.id, auth: shown });
    const all = JSON.stringify([
      c,
      await w.ok("GET", `/vaults/${v.id}/credentials/${c.id}`),
      await w.ok("GET", `/vaults/${v.id}/credentials`),
    ]);
    expect(all).not.toContain("s3cret-token");
  });

  it.each([
    [
      "17 allowed hosts",
      {
        networking: {
          type: "limited",
          allowed_hosts: Array.from({ length: 17 }, (_, i) => `h${i}.example.com`),
        },
      },
    ],
    ["a URL as host", { networking: { type: "limited", allowed_hosts: ["https://x.com"] } }],
    ["missing secret_value", { secret_value: undefined }],
    ["a bad variable name", { secret_name: "1-BAD" }],
  ])("environment_variable credential rejected: %s → 400", async (_n, patch) => {
    const v = await fixtures(w).vault();
    const auth = { type: "environment_variable", secret_name: "K", secret_value: "v", ...patch };
    expect((await w.call("POST", `/vaults/${v.id}/credentials`, { json: { auth } })).status).toBe(400);
  });

  it("credential update, archive, and mcp_oauth_validate", async () => {
    const v = await fixtures(w).vault();
    const c = await w.ok("POST", `/vaults/${v.id}/credentials`, {
      auth: {
        type: "mcp_oauth",
        mcp_server_url: "https://mcp.example.com",
        access_token: "a",
        expires_at: "2000-01-01T00:00:00Z",
      },
    });
    expect((await w.ok("POST", `/vaults/${v.id}/credentials/${c.id}/mcp_oauth_validate`)).valid).toBe(false);
    const changed = await w.ok("POST", `/vaults/${v.id}/credentials/${c.id}`, { display_name: "renamed" });
    expect(changed.display_name).toBe("renamed");
    const typeChange = await w.call("POST", `/vaults/${v.id}/credentials/${c.id}`, {
      json: { auth: { type: "static_bearer", token: "t", mcp_server_url: "https://x.example.com" } },
    });
    expect(typeChange.status).toBe(400);
  });

  it("a credential is only reachable under its own vault", async () => {
    const a = await fixtures(w).vault("a");
    const b = await fixtures(w).vault("b");
    const c = await w.ok("POST", `/vaults/${a.id}/credentials`, {
      auth: { type: "static_bearer", token: "t", mcp_server_url: "https://mcp.example.com" },
    });
    expect((await w.call("GET", `/vaults/${b.id}/credentials/${c.id}`)).status).toBe(404);
  });

  it("deleting a vault deletes its credentials (no orphans in /_sim/state)", async () => {
    const v = await fixtures(w).vault();
    await w.ok("POST", `/vaults/${v.id}/credentials`, {
      auth: { type: "static_bearer", token: "t", mcp_server_url: "https://mcp.example.com" },
    });
    await w.ok("DELETE", `/vaults/${v.id}`);
    expect((await w.control("GET", "/state")).body.credentials).toEqual([]);
  });
});

describe("docs/wire/provider-c.md §3.3 file", () => {
  it("upload multipart `file` → {id, type, filename, mime_type, size_bytes, created_at, downloadable}", async () => {
    const f = await w.ok("POST", "/files", { form: fileForm("notes.md", "# hello", "") });
    expect(f).toEqual({
      id: expect.stringMatching(/^file_/),
      type: "file",
      filename: "notes.md",
      mime_type: "text/markdown",
      size_bytes: 7,
      created_at: expect.any(String),
      downloadable: false,
    });
    expect(await w.ok("GET", `/files/${f.id}`)).toEqual(f);
    expect((await w.ok("GET", "/files")).data).toEqual([f]);
  });

  it("a `purpose` field is not part of provider_c's upload; a missing `file` part → 400", async () => {
    const form = new FormData();
    form.append("purpose", "agent");
    expect((await w.call("POST", "/files", { form })).status).toBe(400);
    expect((await w.call("POST", "/files", { json: { file: "x" } })).status).toBe(400);
  });

  it("download: uploaded files are not downloadable; seeded downloadable files return their bytes", async () => {
    const f = await w.ok("POST", "/files", { form: fileForm("a.md", "x") });
    expect((await w.call("GET", `/files/${f.id}/content`)).status).toBe(400);
    await w.control("POST", "/seed", {
      files: [
        {
          id: "file_seeded",
          type: "file",
          filename: "out.txt",
          mime_type: "text/plain",
          size_bytes: 5,
          downloadable: true,
          created_at: "2026-01-01T00:00:00.000Z",
          content_base64: Buffer.from("bytes").toString("base64"),
        },
      ],
    });
    const r = await w.call("GET", "/files/file_seeded/content");
    expect(r.status).toBe(200);
    expect(Buffer.from(r.bytes).toString()).toBe("bytes");
  });
});
