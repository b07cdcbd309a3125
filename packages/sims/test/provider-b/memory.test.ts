import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { COLLECTIONS } from "../../src/provider-b/state.js";
import { useProviderB } from "./setup.js";

const b = useProviderB();
const { api, control } = b;

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

async function store() {
  const r = await api("POST", "/memory_stores", {
    name: "notes",
    description: "team notes",
    metadata: { a: "1", b: "2" },
  });
  expect(r.body.id).toMatch(/^memstore_/);
  return r.body;
}

describe("provider_b memory stores (docs/wire/provider-b.md §3.6)", () => {
  it("patches store metadata with null and archives (hidden unless include_archived)", async () => {
    const s = await store();
    const u = await api("POST", `/memory_stores/${s.id}`, { metadata: { a: null, c: "3" } });
    expect(u.body.metadata).toEqual({ b: "2", c: "3" });
    await api("POST", `/memory_stores/${s.id}/archive`);
    expect((await api("GET", "/memory_stores")).body.data).toHaveLength(0);
    expect((await api("GET", "/memory_stores?include_archived=true")).body.data).toHaveLength(1);
    expect(
      (await api("POST", `/memory_stores/${s.id}/memories`, { path: "a.md", content: "x" })).status,
    ).toBe(409);
  });

  it.each([
    ["/abs.md", 400],
    ["dir/", 400],
    ["a/../b.md", 400],
    ["notes/today.md", 200],
  ])("memory path %s → %i (paths are relative)", async (path, status) => {
    const s = await store();
    expect((await api("POST", `/memory_stores/${s.id}/memories`, { path, content: "x" })).status).toBe(
      status,
    );
  });

  it("memory objects carry size and store_id alongside size_bytes and memory_store_id", async () => {
    const s = await store();
    const created = (await api("POST", `/memory_stores/${s.id}/memories`, { path: "a.md", content: "héllo" }))
      .body;
    const both = { size_bytes: 6, size: 6, memory_store_id: s.id, store_id: s.id };
    expect(created).toMatchObject(both);
    expect((await api("GET", `/memory_stores/${s.id}/memories/${created.id}`)).body).toMatchObject(both);
    expect((await api("GET", `/memory_stores/${s.id}/memories`)).body.data[0]).toMatchObject(both);
    const updated = await api("POST", `/memory_stores/${s.id}/memories/${created.id}`, { content: "hi" });
    expect(updated.body).toMatchObject({ size_bytes: 2, size: 2, store_id: s.id });
  });

  it("stores content_sha256, enforces it as a precondition, and records versions", async () => {
    const s = await store();
    const m = (await api("POST", `/memory_stores/${s.id}/memories`, { path: "a.md", content: "one" })).body;
    expect(m).toMatchObject({
      id: expect.stringMatching(/^mem_/),
      path: "a.md",
      content: "one",
      content_sha256: sha("one"),
    });
    expect(
      (await api("POST", `/memory_stores/${s.id}/memories`, { path: "a.md", content: "dup" })).status,
    ).toBe(409);
    const stale = await api("POST", `/memory_stores/${s.id}/memories/${m.id}`, {
      content: "two",
      content_sha256: sha("zero"),
    });
    expect(stale.status).toBe(409);
    const ok = await api("POST", `/memory_stores/${s.id}/memories/${m.id}`, {
      content: "two",
      content_sha256: sha("one"),
    });
    expect(ok.body.content_sha256).toBe(sha("two"));
    const versions = await api("GET", `/memory_stores/${s.id}/versions?memory_id=${m.id}`);
    expect(versions.body.data.map((v: any) => [v.action, v.entry_path, v.store_id])).toEqual([
      ["created", "a.md", s.id],
      ["updated", "a.md", s.id],
    ]);
    const vid = versions.body.data[0].id;
    expect(vid).toMatch(/^memver_/);
    const redacted = await api("POST", `/memory_stores/${s.id}/versions/${vid}/redact`);
    expect(redacted.body).toMatchObject({ content: null, redacted_at: expect.any(String) });
    expect((await api("DELETE", `/memory_stores/${s.id}/memories/${m.id}`)).status).toBe(200);
    expect((await api("GET", `/memory_stores/${s.id}/memories/${m.id}`)).status).toBe(404);
  });

  it("lists with prefix and depth, collapsing deeper paths into memory_prefix items", async () => {
    const s = await store();
    for (const path of ["top.md", "docs/a.md", "docs/deep/b.md", "docs/deep/c.md", "other/x.md"]) {
      await api("POST", `/memory_stores/${s.id}/memories`, { path, content: path });
    }
    const flat = await api("GET", `/memory_stores/${s.id}/memories?limit=100`);
    expect(flat.body.data).toHaveLength(5);
    expect(flat.body.data[0]).not.toHaveProperty("content");
    const shallow = await api("GET", `/memory_stores/${s.id}/memories?depth=1`);
    expect(shallow.body.data.map((d: any) => [d.type, d.path])).toEqual([
      ["memory", "top.md"],
      ["memory_prefix", "docs/"],
      ["memory_prefix", "other/"],
    ]);
    const docs = await api("GET", `/memory_stores/${s.id}/memories?prefix=docs/&depth=1`);
    expect(docs.body.data.map((d: any) => d.path)).toEqual(["docs/a.md", "docs/deep/"]);
  });
});

describe("provider_b /_sim/state and /_sim/seed", () => {
  it("dumps every object, archived ones included, and seeds the same shape back", async () => {
    const s = await store();
    await api("POST", `/memory_stores/${s.id}/archive`);
    const a = (await api("POST", "/agents", { name: "a", model: "auto" })).body;
    await api("POST", `/agents/${a.id}/archive`);
    const dump = (await control("GET", "/state")).body;
    expect(dump.memory_stores.map((x: any) => x.id)).toEqual([s.id]);
    expect(dump.agents[0].archived_at).toEqual(expect.any(String));
    // Every collection the state keeps, plus the BYOC mounts and the session events.
    expect(Object.keys(dump)).toEqual(expect.arrayContaining([...COLLECTIONS, "mounts", "events"]));
    await control("POST", "/reset");
    expect((await api("GET", `/agents/${a.id}`)).status).toBe(404);
    expect(
      (await control("POST", "/seed", { agents: dump.agents, memory_stores: dump.memory_stores })).status,
    ).toBe(200);
    expect((await api("GET", `/agents/${a.id}`)).body.archived_at).toEqual(expect.any(String));
    expect((await control("POST", "/seed", { widgets: [] })).status).toBe(400);
    // A hand-written seed may leave out the bookkeeping: it lands on the cloud gateway.
    await control("POST", "/seed", {
      environments: [{ id: "env_external", type: "environment", name: "ext", config: { type: "cloud" } }],
    });
    expect((await api("GET", "/environments/env_external")).body).toEqual({
      id: "env_external",
      type: "environment",
      name: "ext",
      config: { type: "cloud" },
    });
  });
});
