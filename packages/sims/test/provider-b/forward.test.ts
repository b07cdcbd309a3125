import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { client, form, readSse } from "../wire-client.js";
import { KEY, useProviderB } from "./setup.js";

const b = useProviderB();
const { api: cloud, fwd, control } = b;

async function forwardEnv(name = "fenv") {
  const r = await fwd("POST", "/environments", {
    name,
    config: { type: "cloud", packages: { npm: ["zx"] } },
  });
  expect(r.status).toBe(200);
  return r.body;
}
async function template(name = "helper", extra: Record<string, unknown> = {}) {
  const env = await forwardEnv(`env-${name}`);
  const r = await fwd("POST", "/templates", {
    name,
    description: "",
    model: "auto",
    system: "help",
    environment_id: env.id,
    vault_ids: [],
    files: {},
    mcp_servers: [],
    metadata: { "agents.project": "p" },
    ...extra,
  });
  expect(r.status).toBe(200);
  return r.body;
}
async function identity(externalId = "user-1") {
  const r = await fwd("POST", "/identities", {
    external_id: externalId,
    name: externalId,
    metadata: { team: "a" },
  });
  expect(r.status).toBe(200);
  return r.body;
}
async function session(idn: string, tmpl: string, headers: Record<string, string> = {}) {
  return fwd(
    "POST",
    "/sessions",
    { identity_id: idn, template_id: tmpl, incremental_streaming_enabled: false },
    headers,
  );
}

describe("provider_b Forward environments and uploads (docs/wire/provider-b.md §4)", () => {
  it("rejects networking on a Forward environment", async () => {
    const r = await fwd("POST", "/environments", {
      name: "n",
      config: { type: "cloud", networking: { type: "unrestricted" } },
    });
    expect(r.status).toBe(400);
  });

  it.each([
    ["user_upload", 200],
    ["session_resource", 200],
    ["assistants", 400],
  ])("accepts Forward file purpose %s → %i", async (purpose, status) => {
    const r = await fwd(
      "POST",
      "/files",
      form({ file: { name: "a.txt", bytes: new Uint8Array([65]) }, name: "a.txt", purpose }),
    );
    expect(r.status).toBe(status);
  });
});

describe("provider_b Forward files without purpose", () => {
  it("accepts POST /files without purpose and reads it back as user_upload", async () => {
    const r = await fwd("POST", "/files", form({ file: { name: "a.txt", bytes: new Uint8Array([65]) } }));
    expect(r.status).toBe(200);
    expect(r.body.purpose).toBe("user_upload");
    expect((await fwd("GET", `/files/${r.body.id}`)).body.purpose).toBe("user_upload");
  });
});

describe("provider_b templates (docs/wire/provider-b.md §4)", () => {
  it("creates with tmpl_ ids, merges updates, archives with status archived", async () => {
    const t = await template("helper", {
      managed_tool_config: { enabled_tools: ["create_forward_schedule"] },
      environment_variables: { A: "1" },
    });
    expect(t).toMatchObject({
      id: expect.stringMatching(/^tmpl_/),
      status: "active",
      tunnel_id: null,
      files: {},
    });
    const u = await fwd("POST", `/templates/${t.id}`, { system: "help more", tunnel_id: "tnl_sim_primary" });
    expect(u.body).toMatchObject({ system: "help more", tunnel_id: "tnl_sim_primary", model: "auto" });
    expect(u.body.managed_tool_config).toEqual({ enabled_tools: ["create_forward_schedule"] });
    const cleared = await fwd("POST", `/templates/${t.id}`, {
      tunnel_id: null,
      managed_tool_config: { enabled_tools: [] },
    });
    expect(cleared.body).toMatchObject({ tunnel_id: null, managed_tool_config: { enabled_tools: [] } });
    const a = await fwd("POST", `/templates/${t.id}/archive`);
    expect(a.body.status).toBe("archived");
    expect((await fwd("GET", "/templates")).body.data).toHaveLength(0);
    expect((await fwd("GET", "/templates?include_archived=true")).body.data).toHaveLength(1);
    expect((await fwd("POST", `/templates/${t.id}`, { system: "x" })).status).toBe(409);
  });

  it("answers 409 on a duplicate live name, and allows the name again once archived", async () => {
    const t = await template("dup");
    const env = await forwardEnv("other");
    const again = { name: "dup", model: "auto", environment_id: env.id };
    expect((await fwd("POST", "/templates", again)).status).toBe(409);
    await fwd("POST", `/templates/${t.id}/archive`);
    expect((await fwd("POST", "/templates", again)).status).toBe(200);
  });

  it("takes an environment of either gateway (spec: an external one may come from either API), and an existing tunnel", async () => {
    const managedEnv = (await cloud("POST", "/environments", { name: "m", config: { type: "cloud" } })).body;
    const onManaged = await fwd("POST", "/templates", {
      name: "m",
      model: "auto",
      environment_id: managedEnv.id,
    });
    expect(onManaged.status).toBe(200);
    expect(onManaged.body.environment_id).toBe(managedEnv.id);
    await cloud("POST", `/environments/${managedEnv.id}/archive`);
    expect(
      (await fwd("POST", "/templates", { name: "gone", model: "auto", environment_id: managedEnv.id }))
        .status,
    ).toBe(400);
    expect(
      (await fwd("POST", "/templates", { name: "none", model: "auto", environment_id: "env_nope" })).status,
    ).toBe(400);
    const env = await forwardEnv("ok");
    expect(
      (
        await fwd("POST", "/templates", {
          name: "x",
          model: "auto",
          environment_id: env.id,
          tunnel_id: "tnl_nope",
        })
      ).status,
    ).toBe(400);
  });

  it("keeps a roster of template_ids (at most 20) and clears it with null", async () => {
    const member = await template("member");
    const coord = await template("coord", {
      multiagent: { type: "coordinator", agents: [{ type: "template", template_id: member.id }] },
    });
    expect(coord.multiagent.agents).toEqual([{ type: "template", template_id: member.id }]);
    const cleared = await fwd("POST", `/templates/${coord.id}`, { multiagent: null });
    expect(cleared.body.multiagent).toBeNull();
  });
});

describe("provider_b identities (docs/wire/provider-b.md §4)", () => {
  it("filters by external_id, rejects a duplicate, drops metadata keys sent as empty string", async () => {
    const i = await identity("u-1");
    await identity("u-2");
    expect(i.id).toMatch(/^idn_/);
    expect(
      (await fwd("GET", "/identities?external_id=u-1&limit=100")).body.data.map((x: any) => x.id),
    ).toEqual([i.id]);
    expect((await fwd("POST", "/identities", { external_id: "u-1" })).status).toBe(409);
    const u = await fwd("POST", `/identities/${i.id}`, { metadata: { team: "", role: "x" } });
    expect(u.body.metadata).toEqual({ role: "x" });
    expect((await fwd("DELETE", `/identities/${i.id}`)).status).toBe(200);
    expect((await fwd("GET", `/identities/${i.id}`)).status).toBe(404);
  });
});

describe("provider_b channels (docs/wire/provider-b.md §4)", () => {
  const creds = { client_id: "ding-1", client_secret: "ding-secret" };

  it("creates a fixed channel, never reads the secret back, and refuses reused credentials", async () => {
    const t = await template();
    const i = await identity();
    const c = await fwd("POST", "/channels", {
      channel_type: "dingtalk",
      name: "support",
      enabled: true,
      channel_config: { credentials: creds, response_options: { include_thinking: true } },
      identity_id: i.id,
      template_id: t.id,
    });
    expect(c.status).toBe(200);
    expect(c.body.channel_config).toEqual({
      credentials: { client_id: "ding-1" },
      response_options: { include_tool_calls: false, include_thinking: true },
    });
    expect(JSON.stringify((await fwd("GET", "/channels")).body)).not.toContain("ding-secret");
    const reuse = await fwd("POST", "/channels", {
      channel_type: "dingtalk",
      name: "other",
      channel_config: { credentials: creds },
      identity_resolution: { mode: "pairing" },
    });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.code).toBe("CHANNEL_CREDENTIAL_CONFLICT");
    expect((await fwd("POST", `/channels/${c.body.id}`, { channel_type: "feishu" })).status).toBe(400);
    expect((await fwd("POST", `/channels/${c.body.id}`, { enabled: false })).body.enabled).toBe(false);
    expect((await fwd("DELETE", `/channels/${c.body.id}`)).status).toBe(200);
  });

  it("/_sim/state shows neither a channel secret nor an API key, and a seeded channel's secret is hashed too", async () => {
    const t = await template();
    const i = await identity();
    const c = await fwd("POST", "/channels", {
      channel_type: "dingtalk",
      name: "support",
      channel_config: { credentials: creds },
      identity_id: i.id,
      template_id: t.id,
    });
    await fwd("POST", `/channels/${c.body.id}`, {
      channel_config: { credentials: { client_id: "ding-1", client_secret: "ding-secret-rotated" } },
    });
    await control("POST", "/seed", {
      api_keys: ["pat-seeded-secret"],
      channels: [
        {
          id: "chn_seeded",
          type: "channel",
          channel_type: "wecom",
          name: "seeded",
          enabled: true,
          channel_config: { credentials: { bot_id: "bot-9", secret: "wecom-seeded-secret" } },
          identity_resolution: { mode: "pairing" },
        },
      ],
    });
    const text = JSON.stringify((await control("GET", "/state")).body);
    for (const secret of ["ding-secret", "wecom-seeded-secret", "pat-seeded-secret", KEY])
      expect(text).not.toContain(secret);
    const dump = (await control("GET", "/state")).body;
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    expect(dump.channels.find((x: any) => x.id === c.body.id)).toMatchObject({
      channel_config: { credentials: { client_id: "ding-1" } },
      _secrets_sha256: { client_secret: sha("ding-secret-rotated") },
    });
    expect(dump.channels.find((x: any) => x.id === "chn_seeded")).toMatchObject({
      channel_config: { credentials: { bot_id: "bot-9" } },
      _secrets_sha256: { secret: sha("wecom-seeded-secret") },
    });
    // The seeded key still opens the API: it is held, only not dumped.
    const seededKey = client(`${b.sim.origin}/api/v1/forward`, { authorization: "Bearer pat-seeded-secret" });
    expect((await seededKey("GET", "/channels")).status).toBe(200);
  });

  it.each([
    ["feishu", { app_id: "a", app_secret: "s" }, 200],
    ["wecom", { bot_id: "b", secret: "s" }, 200],
    ["feishu", { client_id: "a", client_secret: "s" }, 400],
    ["wechat", { client_id: "a" }, 400],
    ["slack", { token: "t" }, 400],
  ])("type %s with credentials %j → %i (pairing mode)", async (type, credentials, status) => {
    const r = await fwd("POST", "/channels", {
      channel_type: type,
      name: `c-${type}`,
      channel_config: { credentials },
      identity_resolution: { mode: "pairing" },
    });
    expect(r.status).toBe(status);
    if (status === 200)
      expect(r.body).toMatchObject({
        identity_id: null,
        template_id: null,
        identity_resolution: { mode: "pairing" },
      });
  });

  it("requires identity_id and template_id in fixed mode", async () => {
    const r = await fwd("POST", "/channels", {
      channel_type: "wecom",
      name: "x",
      channel_config: { credentials: { bot_id: "b", secret: "s" } },
    });
    expect(r.status).toBe(400);
  });
});

describe("provider_b tunnels (docs/wire/provider-b.md §5: reference only)", () => {
  it("lists pre-seeded tunnels on both gateways, refuses writes, takes more via /_sim/seed", async () => {
    expect((await fwd("GET", "/tunnels")).body.data.map((t: any) => t.id)).toEqual([
      "tnl_sim_primary",
      "tnl_sim_secondary",
    ]);
    expect((await cloud("GET", "/tunnels/tnl_sim_primary")).body).toMatchObject({
      id: "tnl_sim_primary",
      status: "connected",
    });
    expect((await cloud("POST", "/tunnels", { name: "x" })).status).toBe(405);
    expect((await cloud("DELETE", "/tunnels/tnl_sim_primary")).status).toBe(405);
    await control("POST", "/seed", { tunnels: [{ id: "tnl_extra" }] });
    expect((await cloud("GET", "/tunnels/tnl_extra")).body).toMatchObject({
      id: "tnl_extra",
      type: "tunnel",
      status: "connected",
    });
  });
});

describe("provider_b Forward sessions and the default memory store (docs/wire/provider-b.md §4.4, §4.5)", () => {
  it("creates the default store on the first session of a pair, mounted system_managed read_write", async () => {
    const t = await template();
    const i = await identity();
    const s = await session(i.id, t.id);
    expect(s.body).toMatchObject({
      id: expect.stringMatching(/^sess_/),
      template: { id: t.id, environment_id: t.environment_id },
    });
    const mounts = await fwd("GET", `/identities/${i.id}/templates/${t.id}/memory_stores`);
    expect(mounts.body.data).toEqual([
      { memory_store_id: expect.stringMatching(/^memstore_/), system_managed: true, access: "read_write" },
    ]);
    await session(i.id, t.id);
    expect((await fwd("GET", `/identities/${i.id}/templates/${t.id}/memory_stores`)).body.data).toHaveLength(
      1,
    );
    const other = await identity("user-2");
    await session(other.id, t.id);
    expect((await control("GET", "/state")).body.memory_stores).toHaveLength(2);
    const storeId = mounts.body.data[0].memory_store_id;
    const renamed = await fwd("POST", `/memory_stores/${storeId}`, {
      name: "Team memory",
      description: "kept",
    });
    expect(renamed.body).toMatchObject({ name: "Team memory", description: "kept" });
  });

  it("answers 409 'still mounted' on a cloud delete while mounted; deletes after template archive + identity delete", async () => {
    const t = await template();
    const i = await identity();
    await session(i.id, t.id);
    const storeId = (await fwd("GET", `/identities/${i.id}/templates/${t.id}/memory_stores`)).body.data[0]
      .memory_store_id;
    const blocked = await cloud("DELETE", `/memory_stores/${storeId}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.message).toContain("still mounted");
    expect((await fwd("DELETE", `/memory_stores/${storeId}`)).status).toBe(404);
    await fwd("POST", `/templates/${t.id}/archive`);
    await fwd("DELETE", `/identities/${i.id}`);
    expect((await cloud("DELETE", `/memory_stores/${storeId}`)).status).toBe(200);
    const dump = (await control("GET", "/state")).body;
    expect(dump.memory_stores).toHaveLength(0);
    expect(dump.mounts).toHaveLength(0);
  });

  it("lets archive then delete remove a still-mounted store; a second archive is 'already archived'", async () => {
    const t = await template();
    const i = await identity();
    await session(i.id, t.id);
    const storeId = (await fwd("GET", `/identities/${i.id}/templates/${t.id}/memory_stores`)).body.data[0]
      .memory_store_id;
    expect((await cloud("POST", `/memory_stores/${storeId}/archive`)).status).toBe(200);
    const again = await cloud("POST", `/memory_stores/${storeId}/archive`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("already archived");
    expect((await cloud("DELETE", `/memory_stores/${storeId}`)).status).toBe(200);
  });

  it("mounts explicit stores read-only, detaches them, and refuses a duplicate mount", async () => {
    const t = await template();
    const i = await identity();
    const store = (await fwd("POST", "/memory_stores", { name: "docs", description: "", metadata: {} })).body;
    const m = await fwd("POST", `/identities/${i.id}/templates/${t.id}/memory_stores`, {
      memory_store_id: store.id,
    });
    expect(m.body).toEqual({ memory_store_id: store.id, system_managed: false, access: "read_only" });
    expect(
      (
        await fwd("POST", `/identities/${i.id}/templates/${t.id}/memory_stores`, {
          memory_store_id: store.id,
        })
      ).status,
    ).toBe(409);
    expect(
      (await fwd("DELETE", `/identities/${i.id}/templates/${t.id}/memory_stores/${store.id}`)).status,
    ).toBe(200);
    expect((await fwd("GET", `/identities/${i.id}/templates/${t.id}/memory_stores`)).body.data).toEqual([]);
  });

  it("replays a create with the same Idempotency-Key, rejects the key with another body", async () => {
    const t = await template();
    const i = await identity();
    const first = await session(i.id, t.id, { "idempotency-key": "k-1" });
    const replay = await session(i.id, t.id, { "idempotency-key": "k-1" });
    expect(replay.body.id).toBe(first.body.id);
    expect((await fwd("GET", "/sessions")).body.data).toHaveLength(1);
    const store1 = await fwd("POST", "/memory_stores", { name: "s" }, { "idempotency-key": "k-2" });
    const store2 = await fwd("POST", "/memory_stores", { name: "s" }, { "idempotency-key": "k-2" });
    expect(store2.body.id).toBe(store1.body.id);
    expect(
      (await fwd("POST", "/memory_stores", { name: "other" }, { "idempotency-key": "k-2" })).status,
    ).toBe(409);
  });

  it("replays before uniqueness checks (templates, identities) and fingerprints multipart uploads", async () => {
    const env = await forwardEnv("idem");
    const body = { name: "idem-tmpl", model: "auto", environment_id: env.id };
    const t1 = await fwd("POST", "/templates", body, { "idempotency-key": "t-1" });
    const t2 = await fwd("POST", "/templates", body, { "idempotency-key": "t-1" });
    expect([t2.status, t2.body.id, t2.headers.get("idempotent-replayed")]).toEqual([200, t1.body.id, "true"]);
    expect((await fwd("POST", "/templates", body, { "idempotency-key": "t-2" })).status).toBe(409);
    const i1 = await fwd("POST", "/identities", { external_id: "x" }, { "idempotency-key": "i-1" });
    expect(
      (await fwd("POST", "/identities", { external_id: "x" }, { "idempotency-key": "i-1" })).body.id,
    ).toBe(i1.body.id);
    const upload = (bytes: number[]) =>
      fwd(
        "POST",
        "/files",
        form({ file: { name: "a.txt", bytes: new Uint8Array(bytes) }, purpose: "user_upload" }),
        { "idempotency-key": "f-1" },
      );
    const f1 = await upload([1, 2]);
    expect((await upload([1, 2])).body.id).toBe(f1.body.id);
    expect((await upload([3])).status).toBe(409);
    expect((await control("GET", "/state")).body.files).toHaveLength(1);
  });

  it("lists by template with after_id, sends events, resumes the stream with Last-Event-ID, archives instead of deleting", async () => {
    const t = await template();
    const i = await identity();
    const s1 = (await session(i.id, t.id)).body;
    const s2 = (await session(i.id, t.id)).body;
    const p1 = await fwd("GET", `/sessions?template_id=${t.id}&limit=1`);
    expect(p1.body).toMatchObject({ data: [{ id: s1.id }], has_more: true, last_id: s1.id });
    const p2 = await fwd("GET", `/sessions?template_id=${t.id}&limit=1&after_id=${p1.body.last_id}`);
    expect(p2.body).toMatchObject({ data: [{ id: s2.id }], has_more: false });
    await fwd("POST", `/sessions/${s1.id}/events`, {
      events: [{ type: "user.message", content: [{ type: "text", text: "hi" }] }],
    });
    const evs = await fwd("GET", `/sessions/${s1.id}/events?limit=2`);
    expect(evs.body).toMatchObject({ has_more: true, last_id: evs.body.data[1].id });
    const resumed = await readSse(
      `${b.sim.origin}/api/v1/forward/sessions/${s1.id}/events/stream`,
      { authorization: `Bearer ${KEY}`, "last-event-id": evs.body.data[1].id },
      2,
    );
    expect(resumed.map((f) => f.type)).toEqual(["agent.message", "session.status_idle"]);
    expect((await fwd("DELETE", `/sessions/${s1.id}`)).status).toBe(405);
    expect((await fwd("POST", `/sessions/${s1.id}/archive`)).body.archived_at).toEqual(expect.any(String));
    expect((await cloud("GET", `/sessions/${s1.id}`)).status).toBe(404);
  });

  it("refuses a session on an archived template or a disabled identity", async () => {
    const t = await template();
    const i = await identity();
    await fwd("POST", `/identities/${i.id}`, { enabled: false });
    expect((await session(i.id, t.id)).status).toBe(409);
    await fwd("POST", `/identities/${i.id}`, { enabled: true });
    await fwd("POST", `/templates/${t.id}/archive`);
    expect((await session(i.id, t.id)).status).toBe(400);
  });
});
