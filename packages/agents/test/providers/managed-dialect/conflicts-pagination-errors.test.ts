// Adoption after a crash, provider_d's name conflicts and reservations, list walks over more
// than one page, and the error bodies (401, 404, 409) — against the simulators over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAll } from "../../../src/providers/common/paging.js";
import { createHttpClientFactory, ProviderHttpError } from "../../../src/providers/http.js";
import { KEYS, SIMULATED, SimWorld } from "./sim-world.js";

for (const provider of SIMULATED) {
  describe(`${provider} adoption, pagination and errors`, () => {
    let w: SimWorld;
    beforeAll(async () => {
      w = await SimWorld.start(provider);
    });
    afterAll(() => w.close());

    it("list walks follow next_page across pages; findOwned finds an object beyond page one", async () => {
      const ctx = w.ctx("environments", "mine");
      // Ours first: lists answer newest first, so it lands on the second page.
      const created = await w.handler("environments").create(ctx, { config: { type: "cloud" } });
      for (let i = 0; i < 104; i++)
        await w.http.request({
          method: "POST",
          path: "/environments",
          json: { name: `noise-${i}`, config: { type: "cloud" }, metadata: { "agents.project": "other" } },
        });
      const listGets = () =>
        w.sim.log.since().filter((e) => e.method === "GET" && /\/environments$/.test(e.path)).length;
      const before = listGets();
      const all = await listAll(w.http, "/environments", { pageSize: 100 });
      expect(all).toHaveLength(105);
      expect(new Set(all.map((e) => (e as { id: string }).id)).size).toBe(105);
      expect(listGets() - before).toBe(2);
      const found = await w.handler("environments").findOwned!(ctx, ctx.owner);
      expect(found?.id).toBe(created.id);
      // Not someone else's: another project with the same address finds nothing.
      expect(
        await w.handler("environments").findOwned!(ctx, { ...ctx.owner, project: "other" }),
      ).toBeUndefined();
    });

    it("after a crash (id never recorded) findOwned adopts instead of duplicating", async () => {
      for (const kind of ["vaults", "memory_stores", "agents"] as const) {
        const name = `crash-${kind}`;
        const ctx = w.ctx(kind, name);
        const spec =
          kind === "agents" ? { model: "m-1", instructions: "x" } : kind === "vaults" ? {} : { entries: [] };
        const created = await w.handler(kind).create(ctx, spec);
        const adopted = await w.handler(kind).findOwned!(ctx, ctx.owner);
        expect(adopted?.id, kind).toBe(created.id);
        expect(adopted?.owner).toEqual(ctx.owner);
      }
    });

    it("401: a wrong key fails with the provider's error type and never echoes the key", async () => {
      const factory = createHttpClientFactory({ policy: { maxRetries: 0 } });
      const bad = w.adapter.connect({ api_key: "wrong-key-123456" }, factory, w.sim.url).http;
      const error = await w
        .handler("environments")
        .read(w.ctx("environments", "x", bad), "env_missing")
        .catch((e) => e);
      expect(error).toBeInstanceOf(ProviderHttpError);
      expect(error.status).toBe(401);
      expect(error.code).toMatch(provider === "provider_c" ? /^authentication_error$/ : /auth/i);
      expect(error.message).not.toContain("wrong-key-123456");
    });

    it("404: read is gone and remove is already done, for every kind", async () => {
      for (const kind of ["environments", "vaults", "memory_stores", "files", "agents"] as const) {
        const ctx = w.ctx(kind, "nothing");
        expect(await w.handler(kind).read(ctx, "does-not-exist"), kind).toBe("gone");
        await w.handler(kind).remove(ctx, "does-not-exist");
      }
    });
  });
}

describe("provider_c memory seeds keep what agents wrote", () => {
  let w: SimWorld;
  beforeAll(async () => {
    w = await SimWorld.start("provider_c");
  });
  afterAll(() => w.close());

  it("update rewrites declared paths only; memory calls carry only the memory beta", async () => {
    const first = await w.apply("memory_stores", "kb", { entries: [{ key: "seed.md", content: "v1" }] });
    const headers = { "anthropic-beta": "agent-memory-2026-07-22" };
    await w.http.request({
      method: "POST",
      path: `/memory_stores/${first.id}/memories`,
      json: { path: "/agent/wrote.md", content: "mine" },
      headers,
    });
    const declared = { entries: [{ key: "seed.md", content: "v2" }] };
    await w.handler("memory_stores").update!(w.ctx("memory_stores", "kb"), first.id, declared, first);
    const memories = await listAll<Record<string, unknown>>(w.http, `/memory_stores/${first.id}/memories`, {
      headers,
      query: { view: "full" },
      pageSize: 20,
    });
    const byPath = Object.fromEntries(memories.map((m) => [m.path, m.content]));
    expect(byPath).toEqual({ "/seed.md": "v2", "/agent/wrote.md": "mine" });
  });
});

describe("provider_c 409s", () => {
  let w: SimWorld;
  beforeAll(async () => {
    w = await SimWorld.start("provider_c");
  });
  afterAll(() => w.close());

  it("a stale agent version answers 409 conflict_error, which is not an 'already exists' conflict", async () => {
    const agent = await w.apply("agents", "a", { model: "m-1", instructions: "x" });
    const error = await w.http
      .request({ method: "POST", path: `/agents/${agent.id}`, json: { version: 99, description: "late" } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error).toMatchObject({ status: 409, code: "conflict_error", conflict: false });
  });

  it("an update that loses the version race re-reads the version and lands", async () => {
    const agent = await w.apply("agents", "b", { model: "m-1", instructions: "x" });
    w.sim.faults.set({
      rules: [{ method: "POST", path: "/agents/[^/]+$", nth: 1, action: { type: "status", status: 409 } }],
    });
    const updated = await w.handler("agents").update!(
      w.ctx("agents", "b"),
      agent.id,
      { model: "m-1", instructions: "y" },
      agent,
    );
    expect(updated.version).toBe(2);
    const posts = w.sim.log
      .since()
      .filter((e) => e.method === "POST" && e.path.endsWith(`/agents/${agent.id}`));
    expect(posts.map((e) => e.status)).toEqual([409, 200]);
    w.sim.faults.set({});
  });
});

for (const provider of SIMULATED) {
  describe(`${provider} partial creates leave nothing behind`, () => {
    let w: SimWorld;
    beforeAll(async () => {
      w = await SimWorld.start(provider);
    });
    afterAll(() => w.close());

    it("a vault whose second credential fails is deleted, and the secret is not in the error", async () => {
      w.sim.faults.set({
        rules: [
          {
            method: "POST",
            path: "/vaults/[^/]+/credentials$",
            nth: 2,
            action: { type: "status", status: 500 },
          },
        ],
      });
      const spec = {
        credentials: [
          {
            name: "a",
            type: "static_bearer",
            mcp_server_url: "https://m/a",
            access_token: "secret-token-aaaa",
          },
          {
            name: "b",
            type: "static_bearer",
            mcp_server_url: "https://m/b",
            access_token: "secret-token-bbbb",
          },
        ],
      };
      const ctx = w.ctx("vaults", "half");
      const error = await w
        .handler("vaults")
        .create(ctx, spec)
        .catch((e) => e);
      w.sim.faults.set({});
      expect(error).toBeInstanceOf(ProviderHttpError);
      expect(error.status).toBe(500);
      expect(String(error.message)).not.toMatch(/secret-token/);
      expect(await w.handler("vaults").findOwned!(ctx, ctx.owner)).toBeUndefined();
    });

    it("a memory store whose seeding fails is deleted", async () => {
      w.sim.faults.set({
        rules: [
          {
            method: "POST",
            path: "/memories(/batch_create)?$",
            nth: 1,
            action: { type: "status", status: 500 },
          },
        ],
      });
      const spec = { entries: [{ key: "a.md", content: "A" }] };
      const ctx = w.ctx("memory_stores", "half");
      await expect(w.handler("memory_stores").create(ctx, spec)).rejects.toThrow(/500/);
      w.sim.faults.set({});
      expect(await w.handler("memory_stores").findOwned!(ctx, ctx.owner)).toBeUndefined();
    });
  });
}

describe("provider_c with a custom beta value", () => {
  let w: SimWorld;
  beforeAll(async () => {
    w = await SimWorld.start("provider_c");
  });
  afterAll(() => w.close());

  it("skills, files and memory stores still get the beta their endpoints require", async () => {
    const factory = createHttpClientFactory({ policy: { maxRetries: 0 } });
    const http = w.adapter.connect(
      { api_key: KEYS.provider_c, beta: "managed-agents-2026-04-01" },
      factory,
      w.sim.url,
    ).http;
    await w.writeFile("s/SKILL.md", "---\nname: s\n---\nx\n");
    await w.writeFile("f.txt", "x");
    for (const [kind, spec] of [
      ["skills", { source: "s" }],
      ["files", { source: "f.txt" }],
      ["memory_stores", { entries: [{ key: "a", content: "A" }] }],
      ["environments", { config: { type: "cloud" } }],
    ] as const) {
      const created = await w.handler(kind).create(w.ctx(kind, "custom-beta", http), spec);
      expect(created.id, kind).toBeTruthy();
    }
  });
});
