// provider_b Forward delivery against the simulator: the agent becomes a Template; its
// environment, vault, skill, files and explicit memory store live on the Forward API; the
// default memory store goes pending → renamed → (delete_on_destroy) captured and deleted.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpClient } from "../../../src/providers/http.js";
import { domainClient } from "../../../src/providers/provider-b/client.js";
import { createProviderB } from "../../../src/providers/provider-b/definition.js";
import { deriveProviderB } from "../../../src/providers/provider-b/derive.js";
import { DEFAULT_STORE_CLEANUP } from "../../../src/providers/provider-b/handlers/default-store.js";
import type { Kind, PriorState, Spec } from "../../../src/providers/types.js";
import { desiredOf, drift, type Harness, makeHarness, writeSkill } from "../harness.js";

let sim: RunningSim;
let h: Harness;
let forward: HttpClient;
const adapter = createProviderB({ storeDeleteRetryMs: [1, 1], sleep: async () => {} });

const config: Record<string, any> = {
  defaults: { identity: "alice" },
  identities: { alice: { external_id: "user-1", name: "Alice" } },
  environments: { fenv: { config: { type: "cloud", packages: { pip: ["httpx"] } } } },
  vaults: {
    fv: {
      credentials: [
        { name: "api", type: "environment_variable", secret_name: "API_KEY", secret_value: "sk-forward-1" },
      ],
    },
  },
  memory_stores: {
    kb: { description: "shared facts", entries: [{ key: "facts.md", content: "the sky is blue" }] },
  },
  skills: { fskill: { source: "fskill" } },
  agents: {
    member: {
      model: "auto",
      instructions: "answer",
      environment: "fenv",
      delivery: { provider_b: { type: "forward" } },
    },
    concierge: {
      model: "auto",
      instructions: "route requests",
      environment: "fenv",
      vault: "fv",
      skills: ["fskill"],
      memory_stores: ["kb"],
      // The string form: a local file by path, inherited by the Template.
      files: ["guide.md"],
      environment_variables: { REGION: "cn" },
      managed_tool_config: { enabled_tools: ["create_forward_schedule", "list_forward_schedules"] },
      multiagent: { type: "coordinator", agents: ["member"] },
      default_memory_store: {
        name: "Concierge memory",
        description: "per-user memory",
        delete_on_destroy: true,
      },
      delivery: { provider_b: { type: "forward" } },
    },
  },
  channels: {
    desk: {
      type: "dingtalk",
      agent: "concierge",
      credentials: { client_id: "cid-1", client_secret: "csecret-1" },
    },
    broadcast: { type: "feishu", mode: "pairing", credentials: { app_id: "app-2", app_secret: "asecret-2" } },
  },
};

/** The spec the engine would hand over: the declaration plus the adapter's derived facts. */
function specOf(kind: Kind, name: string, override?: Spec): Spec {
  const decl = override ?? (config[kind][name] as Spec);
  const derived = deriveProviderB(config, kind, name);
  return derived ? { ...decl, derived } : decl;
}

async function get<T = Record<string, any>>(client: HttpClient, path: string): Promise<T> {
  return (await client.request<T>({ method: "GET", path })).body;
}

beforeAll(async () => {
  sim = await startSim("provider_b", { port: 0, quiet: true });
  h = await makeHarness(adapter, { api_key: "sim-provider-b-key" }, sim.url);
  forward = domainClient(h, "forward");
  await writeFile(join(h.configDir, "guide.md"), "# Guide\nBe kind.\n");
  await writeSkill(h.configDir, "fskill");
});
afterAll(async () => {
  await sim?.close();
});

describe("provider_b Forward delivery", () => {
  let templateId: string;
  let desired: Spec;
  let prior: PriorState;

  it("creates the identity and the agent's resources through the Forward APIs", async () => {
    await h.create("identities", "alice", specOf("identities", "alice"));
    for (const [kind, name] of [
      ["environments", "fenv"],
      ["vaults", "fv"],
      ["memory_stores", "kb"],
      ["skills", "fskill"],
    ] as const) {
      const remote = await h.create(kind, name, specOf(kind, name));
      expect(remote.extra?.domain, `${kind}/${name}`).toBe("forward");
    }
    const envId = h.refs.get("environments/fenv")!.id;
    // Forward environments take no networking; the object exists on the Forward API.
    expect((await get(forward, `/environments/${envId}`)).config).not.toHaveProperty("networking");
  });

  it("turns the agent into a Template and reports the default store as pending", async () => {
    await h.create("agents", "member", specOf("agents", "member"));
    h.warnings.length = 0;
    const created = await h.create("agents", "concierge", specOf("agents", "concierge"));
    templateId = created.id;
    expect(templateId).toMatch(/^tmpl_/);
    expect(h.warnings.join("\n")).toMatch(/default memory store pending/);

    const tmpl = await get(forward, `/templates/${templateId}`);
    expect(tmpl.environment_variables).toEqual({ REGION: "cn" });
    expect(tmpl.managed_tool_config).toEqual({
      enabled_tools: ["create_forward_schedule", "list_forward_schedules"],
    });
    expect(tmpl.multiagent).toEqual({
      type: "coordinator",
      agents: [{ type: "template", template_id: h.refs.get("agents/member")!.id }],
    });
    expect(Object.keys(tmpl.files)).toHaveLength(1);
    expect(tmpl.skills).toEqual([
      expect.objectContaining({ skill_id: h.refs.get("skills/fskill")!.id, enabled: true }),
    ]);

    const identityId = h.refs.get("identities/alice")!.id;
    const mounts = (
      await get<{ data: any[] }>(forward, `/identities/${identityId}/templates/${templateId}/memory_stores`)
    ).data;
    expect(mounts).toEqual([
      expect.objectContaining({
        memory_store_id: h.refs.get("memory_stores/kb")!.id,
        system_managed: false,
        access: "read_only",
      }),
    ]);

    const handler = h.handler("agents");
    desired = await desiredOf(handler, specOf("agents", "concierge"), h.configDir, "concierge");
    prior = { id: templateId, spec: desired, extra: created.extra };
    const read = await handler.read(h.ctx("agents", "concierge"), templateId, prior);
    // Until a Session creates the store there is nothing to compare: pending is a known state,
    // said as a warning, never drift (a plan right after apply says "No changes").
    expect((read as { spec: Spec }).spec).not.toHaveProperty("default_memory_store");
    expect(drift(handler, desired, (read as { spec: Spec }).spec)).not.toContain("default_memory_store");
    expect(h.warnings).toContainEqual(expect.stringContaining("default memory store pending"));
  });

  it("after the first Forward Session, apply renames the default store idempotently", async () => {
    const identityId = h.refs.get("identities/alice")!.id;
    await forward.request({
      method: "POST",
      path: "/sessions",
      json: { identity_id: identityId, template_id: templateId },
    });
    const handler = h.handler("agents");
    const updated = await handler.update!(
      h.ctx("agents", "concierge"),
      templateId,
      specOf("agents", "concierge"),
      prior,
    );
    const storeId = (updated.extra!.default_memory_store as { id: string }).id;
    expect(storeId).toMatch(/^mem/);
    const store = await get(forward, `/memory_stores/${storeId}`);
    expect(store).toMatchObject({ name: "Concierge memory", description: "per-user memory" });
    prior = { id: templateId, spec: desired, extra: updated.extra };
    const read = await handler.read(h.ctx("agents", "concierge"), templateId, prior);
    expect(drift(handler, desired, (read as { spec: Spec }).spec)).toEqual([]);
  });

  it.each([
    // Rows run in order: each starts from the set the previous one left.
    [
      "a new list replaces the whole set",
      { enabled_tools: ["delete_forward_schedule"] },
      ["delete_forward_schedule"],
    ],
    [
      "removing a managed_tool_config the last apply declared resets the set to a new Template's (none)",
      undefined,
      [],
    ],
    ["an empty enabled_tools turns every managed tool off", { enabled_tools: [] }, []],
  ])("managed_tool_config: %s", async (_rule, mtc, expected) => {
    const { managed_tool_config: _omit, ...rest } = config.agents.concierge;
    const decl = mtc ? { ...rest, managed_tool_config: mtc } : rest;
    await h.handler("agents").update!(
      h.ctx("agents", "concierge"),
      templateId,
      specOf("agents", "concierge", decl),
      prior,
    );
    expect((await get(forward, `/templates/${templateId}`)).managed_tool_config).toEqual({
      enabled_tools: expected,
    });
    if (!mtc) {
      // No longer declared = not managed: whatever the Template holds from now on is not drift.
      const handler = h.handler("agents");
      const lastApplied = await desiredOf(
        handler,
        specOf("agents", "concierge", decl),
        h.configDir,
        "concierge",
      );
      const read = await handler.read(h.ctx("agents", "concierge"), templateId, {
        ...prior,
        spec: lastApplied,
      });
      expect(drift(handler, lastApplied, (read as { spec: Spec }).spec)).toEqual([]);
    }
  });

  it("a metadata key dropped from the file is removed from the Template (updates merge)", async () => {
    const handler = h.handler("agents");
    const withKey = { ...config.agents.concierge, metadata: { team: "support", tier: "gold" } };
    await handler.update!(
      h.ctx("agents", "concierge"),
      templateId,
      specOf("agents", "concierge", withKey),
      prior,
    );
    expect((await get(forward, `/templates/${templateId}`)).metadata).toMatchObject({ tier: "gold" });
    const dropped = { ...config.agents.concierge, metadata: { team: "support" } };
    const updated = await handler.update!(
      h.ctx("agents", "concierge"),
      templateId,
      specOf("agents", "concierge", dropped),
      prior,
    );
    const metadata = (await get(forward, `/templates/${templateId}`)).metadata;
    expect(metadata).not.toHaveProperty("tier");
    expect(metadata).toMatchObject({ team: "support", "agents.resource": 'provider_b.agents["concierge"]' });
    expect(updated.spec.metadata).toEqual({ team: "support" });
    // Back to the declaration the later tests use.
    await handler.update!(h.ctx("agents", "concierge"), templateId, specOf("agents", "concierge"), prior);
  });

  it("removing multiagent clears the Template roster with an explicit null", async () => {
    const { multiagent: _omit, ...rest } = config.agents.concierge;
    await h.handler("agents").update!(
      h.ctx("agents", "concierge"),
      templateId,
      specOf("agents", "concierge", rest),
      prior,
    );
    expect((await get(forward, `/templates/${templateId}`)).multiagent ?? null).toBeNull();
  });

  it("channels: fixed binds identity and template, pairing is transport only; secrets stay out of reads", async () => {
    const handler = h.handler("channels");
    const desk = await h.create("channels", "desk", specOf("channels", "desk"));
    const wireDesk = await get(forward, `/channels/${desk.id}`);
    expect(wireDesk).toMatchObject({
      identity_id: h.refs.get("identities/alice")!.id,
      template_id: templateId,
      channel_type: "dingtalk",
    });
    const pairing = await h.create("channels", "broadcast", specOf("channels", "broadcast"));
    expect((await get(forward, `/channels/${pairing.id}`)).identity_resolution).toEqual({ mode: "pairing" });
    const read = await handler.read(h.ctx("channels", "desk"), desk.id);
    expect(JSON.stringify(read)).not.toMatch(/csecret-1/);
    await handler.update!(
      h.ctx("channels", "desk"),
      desk.id,
      specOf("channels", "desk", { ...config.channels.desk, enabled: false }),
      {
        id: desk.id,
        spec: {},
      },
    );
    expect((await get(forward, `/channels/${desk.id}`)).enabled).toBe(false);
    for (const [name, id] of [
      ["desk", desk.id],
      ["broadcast", pairing.id],
    ] as const) {
      await handler.remove(h.ctx("channels", name), id);
      expect(await handler.read(h.ctx("channels", name), id)).toBe("gone");
    }
  });

  it("destroy preflight aborts when the identity cannot be resolved, before anything is deleted", async () => {
    const handler = h.handler("agents");
    const broken = { ...prior, extra: { ...prior.extra, identity_id: "idn_missing" } };
    await expect(
      handler.preflightRemove!(h.ctx("agents", "concierge"), templateId, broken),
    ).rejects.toThrow();
    expect(h.deferred).toEqual([]);
    expect((await get(forward, `/templates/${templateId}`)).status).not.toBe("archived");
  });

  it("delete_on_destroy false (or omitted) retains the store: nothing is deferred", async () => {
    const keep = {
      ...prior,
      spec: { ...prior.spec, default_memory_store: { name: "Concierge memory", delete_on_destroy: false } },
    };
    await h.handler("agents").preflightRemove!(h.ctx("agents", "concierge"), templateId, keep);
    expect(h.deferred).toEqual([]);
  });

  it("delete_on_destroy true: id captured before archive, store deleted after the identity", async () => {
    const handler = h.handler("agents");
    const storeId = (prior.extra!.default_memory_store as { id: string }).id;
    await handler.preflightRemove!(h.ctx("agents", "concierge"), templateId, prior);
    expect(h.deferred).toEqual([
      expect.objectContaining({
        type: DEFAULT_STORE_CLEANUP,
        data: expect.objectContaining({ store_id: storeId }),
      }),
    ]);

    await handler.remove(h.ctx("agents", "concierge"), templateId, prior);
    expect(await handler.read(h.ctx("agents", "concierge"), templateId, prior)).toBe("gone");
    const member = h.refs.get("agents/member")!;
    await handler.remove(h.ctx("agents", "member"), member.id, {
      id: member.id,
      spec: {},
      extra: member.extra,
    });
    const identityId = h.refs.get("identities/alice")!.id;
    await h.handler("identities").remove(h.ctx("identities", "alice"), identityId);

    const task = h.deferred[0]!;
    await adapter.deferred![task.type]!.run(h.ctx("agents", "concierge"), task.data);
    const res = await h.http.request({
      method: "GET",
      path: `/memory_stores/${storeId}`,
      allowStatus: [404],
    });
    expect(res.status === 404 || Boolean((res.body as { archived_at?: string }).archived_at)).toBe(true);
    // Running it again (a resumed destroy) is harmless.
    await adapter.deferred![task.type]!.run(h.ctx("agents", "concierge"), task.data);
  });

  it("the explicit Forward store and the rest are removed; nothing of ours is left", async () => {
    for (const [kind, name] of [
      ["memory_stores", "kb"],
      ["skills", "fskill"],
      ["vaults", "fv"],
      ["environments", "fenv"],
    ] as const) {
      const ref = h.refs.get(`${kind}/${name}`)!;
      const p = { id: ref.id, spec: ref.spec, extra: ref.extra };
      await h.handler(kind).remove(h.ctx(kind, name), ref.id, p);
      expect(await h.handler(kind).read(h.ctx(kind, name), ref.id, p), `${kind}/${name}`).toBe("gone");
    }
  });
});

describe("provider_b default store cleanup when the mount never clears (destroy rule 2)", () => {
  it("retries the still-mounted conflict a bounded number of times, then archives and deletes", async () => {
    const created = await h.http.request<{ id: string }>({
      method: "POST",
      path: "/memory_stores",
      json: { name: "stubborn" },
    });
    const storeId = created.body.id;
    const stillMounted = {
      type: "status",
      status: 409,
      body: {
        error: { type: "conflict_error", code: "MEMORY_STORE_STILL_MOUNTED", message: "still mounted" },
      },
    };
    // A fired rule ends the search, so three "first match" rules answer the first three deletes.
    const rule = { method: "DELETE", path: `/cloud/memory_stores/${storeId}$`, nth: 1, action: stillMounted };
    const setFaults = (body: unknown) =>
      fetch(`${sim.origin}/_sim/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const before = (
      (await (await fetch(`${sim.origin}/_sim/log`)).json()) as { entries: { seq: number }[] }
    ).entries.at(-1)!.seq;
    await setFaults({ rules: [rule, rule, rule] });
    try {
      await adapter.deferred![DEFAULT_STORE_CLEANUP]!.run(h.ctx("agents", "concierge"), {
        store_id: storeId,
        identity_id: "idn_gone",
        template_id: "tmpl_gone",
      });
    } finally {
      await setFaults({});
    }
    const log = (
      (await (await fetch(`${sim.origin}/_sim/log`)).json()) as {
        entries: { seq: number; method: string; path: string; status: number }[];
      }
    ).entries.filter(
      (e) => e.seq > before && new RegExp(`^(/api/v1/cloud)?/memory_stores/${storeId}`).test(e.path),
    );
    // One try plus the two configured retries, then archive, then the delete that succeeds.
    expect(log.map((e) => `${e.method} ${e.path.replace(/^\/api\/v1\/cloud/, "")} ${e.status}`)).toEqual([
      `DELETE /memory_stores/${storeId} 409`,
      `DELETE /memory_stores/${storeId} 409`,
      `DELETE /memory_stores/${storeId} 409`,
      `POST /memory_stores/${storeId}/archive 200`,
      `DELETE /memory_stores/${storeId} 200`,
    ]);
  });
});
