import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useWire } from "../support/wire.js";
import { fixtures, openC } from "./setup.js";

const w = useWire(openC);

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const mems = (id: string) => `/memory_stores/${id}/memories`;

describe("docs/wire/provider-c.md §3.6 memory store", () => {
  it("create {name, description, metadata} / get / list", async () => {
    const s = await w.ok("POST", "/memory_stores", {
      name: "Team Notes",
      description: "d",
      metadata: { a: "1" },
    });
    expect(s).toMatchObject({
      type: "memory_store",
      name: "Team Notes",
      description: "d",
      metadata: { a: "1" },
      archived_at: null,
    });
    expect(await w.ok("GET", `/memory_stores/${s.id}`)).toEqual(s);
    expect((await w.ok("GET", "/memory_stores")).data).toEqual([s]);
  });

  it.each([
    ["empty name", { name: "" }],
    ["256-char name", { name: "n".repeat(256) }],
    ["1025-char description", { name: "n", description: "d".repeat(1025) }],
  ])("create rejected: %s → 400", async (_n, json) => {
    expect((await w.call("POST", "/memory_stores", { json })).status).toBe(400);
  });

  it("update: metadata is a patch (string upserts, null deletes)", async () => {
    const s = await w.ok("POST", "/memory_stores", { name: "n", metadata: { keep: "1", drop: "2" } });
    const u = await w.ok("POST", `/memory_stores/${s.id}`, {
      metadata: { drop: null, add: "3" },
      description: "x",
    });
    expect(u.metadata).toEqual({ keep: "1", add: "3" });
    expect(u.description).toBe("x");
  });

  it("archive is irreversible; memories become read/delete-only", async () => {
    const s = await fixtures(w).store();
    const m = await w.ok("POST", mems(s.id), { path: "/a.md", content: "x" });
    await w.ok("POST", `/memory_stores/${s.id}/archive`);
    expect((await w.call("POST", mems(s.id), { json: { path: "/b.md", content: "y" } })).status).toBe(400);
    expect((await w.call("POST", `${mems(s.id)}/${m.id}`, { json: { content: "z" } })).status).toBe(400);
    expect((await w.ok("GET", `${mems(s.id)}/${m.id}`)).content).toBe("x");
    expect(await w.ok("DELETE", `${mems(s.id)}/${m.id}`)).toEqual({ id: m.id, type: "memory_deleted" });
  });

  it("delete → {id, type: memory_store_deleted}; its memories and versions go with it", async () => {
    const s = await fixtures(w).store();
    await w.ok("POST", mems(s.id), { path: "/a.md", content: "x" });
    expect(await w.ok("DELETE", `/memory_stores/${s.id}`)).toEqual({
      id: s.id,
      type: "memory_store_deleted",
    });
    const state = (await w.control("GET", "/state")).body;
    expect(state.memories).toEqual([]);
    expect(state.memory_versions).toEqual([]);
  });
});

describe("docs/wire/provider-c.md §3.6 memories", () => {
  it("create {path, content} → the memory object with sha256 of the UTF-8 bytes", async () => {
    const s = await fixtures(w).store();
    const content = "héllo";
    const m = await w.ok("POST", mems(s.id), { path: "/notes/a.md", content });
    expect(m).toEqual({
      id: expect.stringMatching(/^mem_/),
      type: "memory",
      memory_store_id: s.id,
      path: "/notes/a.md",
      content,
      content_sha256: sha(content),
      content_size_bytes: Buffer.byteLength(content),
      memory_version_id: expect.stringMatching(/^memver_/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it.each([
    ["relative", "notes/a.md"],
    ["empty segment", "/a//b.md"],
    ["dot-dot", "/a/../b.md"],
    ["21 segments", `/${Array.from({ length: 21 }, () => "d").join("/")}`],
    ["over 1024 bytes", `/${"x".repeat(1024)}`],
  ])("path rejected: %s → 400", async (_n, path) => {
    const s = await fixtures(w).store();
    expect((await w.call("POST", mems(s.id), { json: { path, content: "x" } })).status).toBe(400);
  });

  it("paths are NFC-normalised; content over 100 kB or missing → 400", async () => {
    const s = await fixtures(w).store();
    expect((await w.call("POST", mems(s.id), { json: { path: "/no-content.md" } })).status).toBe(400);
    const m = await w.ok("POST", mems(s.id), { path: "/cafe\u0301.md", content: "x" });
    expect(m.path).toBe("/caf\u00e9.md");
    expect(
      (await w.call("POST", mems(s.id), { json: { path: "/big", content: "x".repeat(100 * 1024 + 1) } }))
        .status,
    ).toBe(400);
  });

  it("an existing path → 409 memory_path_conflict_error naming the other memory", async () => {
    const s = await fixtures(w).store();
    const m = await w.ok("POST", mems(s.id), { path: "/a.md", content: "x" });
    const r = await w.call("POST", mems(s.id), { json: { path: "/a.md", content: "y" } });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      type: "memory_path_conflict_error",
      conflicting_memory_id: m.id,
      conflicting_path: "/a.md",
    });
  });

  it("get: default view full, ?view=basic omits content", async () => {
    const s = await fixtures(w).store();
    const m = await w.ok("POST", mems(s.id), { path: "/a.md", content: "x" });
    expect((await w.ok("GET", `${mems(s.id)}/${m.id}`)).content).toBe("x");
    const basic = await w.ok("GET", `${mems(s.id)}/${m.id}?view=basic`);
    expect(basic).not.toHaveProperty("content");
    expect(basic.content_sha256).toBe(sha("x"));
  });

  it("update with precondition content_sha256: match writes, mismatch → 409 memory_precondition_failed_error", async () => {
    const s = await fixtures(w).store();
    const m = await w.ok("POST", mems(s.id), { path: "/a.md", content: "one" });
    const ok = await w.ok("POST", `${mems(s.id)}/${m.id}?view=full`, {
      content: "two",
      precondition: { type: "content_sha256", content_sha256: sha("one") },
    });
    expect(ok).toMatchObject({ content: "two", content_sha256: sha("two") });
    expect(ok.memory_version_id).not.toBe(m.memory_version_id);
    const stale = await w.call("POST", `${mems(s.id)}/${m.id}`, {
      json: { content: "three", precondition: { type: "content_sha256", content_sha256: sha("one") } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.type).toBe("memory_precondition_failed_error");
  });

  it("update: moving onto an existing path → 409 memory_path_conflict_error", async () => {
    const s = await fixtures(w).store();
    await w.ok("POST", mems(s.id), { path: "/a.md", content: "a" });
    const b = await w.ok("POST", mems(s.id), { path: "/b.md", content: "b" });
    const r = await w.call("POST", `${mems(s.id)}/${b.id}`, { json: { path: "/a.md" } });
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe("memory_path_conflict_error");
  });

  it("delete with expected_content_sha256: mismatch → 409, match deletes", async () => {
    const s = await fixtures(w).store();
    const m = await w.ok("POST", mems(s.id), { path: "/a.md", content: "x" });
    expect((await w.call("DELETE", `${mems(s.id)}/${m.id}?expected_content_sha256=${sha("y")}`)).status).toBe(
      409,
    );
    expect((await w.call("DELETE", `${mems(s.id)}/${m.id}?expected_content_sha256=${sha("x")}`)).status).toBe(
      200,
    );
  });

  it("list: path_prefix, depth → memory_prefix items, view=basic by default, path order", async () => {
    const s = await fixtures(w).store();
    for (const p of ["/x/b.md", "/x/a.md", "/x/sub/c.md", "/x/sub/deep/d.md", "/y/e.md"]) {
      await w.ok("POST", mems(s.id), { path: p, content: p });
    }
    const flat = await w.ok("GET", `${mems(s.id)}?path_prefix=/x/`);
    expect(flat.data.map((m: any) => m.path)).toEqual([
      "/x/a.md",
      "/x/b.md",
      "/x/sub/c.md",
      "/x/sub/deep/d.md",
    ]);
    expect(flat.data[0]).not.toHaveProperty("content");
    const shallow = await w.ok("GET", `${mems(s.id)}?path_prefix=/x/&depth=1`);
    expect(shallow.data).toEqual([
      expect.objectContaining({ type: "memory", path: "/x/a.md" }),
      expect.objectContaining({ type: "memory", path: "/x/b.md" }),
      { type: "memory_prefix", path: "/x/sub/" },
    ]);
    const full = await w.ok("GET", `${mems(s.id)}?view=full&limit=2`);
    expect(full.data[0].content).toBe("/x/a.md");
    expect(full.next_page).toEqual(expect.any(String));
  });

  it("list: view=full caps a page at 20", async () => {
    const s = await fixtures(w).store();
    for (let i = 0; i < 25; i++)
      await w.ok("POST", mems(s.id), { path: `/m${String(i).padStart(2, "0")}.md`, content: "x" });
    expect((await w.ok("GET", `${mems(s.id)}?view=full&limit=100`)).data).toHaveLength(20);
    expect((await w.ok("GET", `${mems(s.id)}?view=basic&limit=100`)).data).toHaveLength(25);
  });
});

describe("docs/wire/provider-c.md §3.6 memory versions", () => {
  it("every write is a version; list filters by memory_id; get; redact clears content", async () => {
    const s = await fixtures(w).store();
    const m = await w.ok("POST", mems(s.id), { path: "/a.md", content: "secret v1" });
    await w.ok("POST", `${mems(s.id)}/${m.id}`, { content: "v2" });
    await w.ok("POST", mems(s.id), { path: "/other.md", content: "o" });
    const list = await w.ok("GET", `/memory_stores/${s.id}/memory_versions?memory_id=${m.id}`);
    expect(list.data.map((v: any) => v.operation)).toEqual(["modified", "created"]);
    const first = list.data[1];
    expect(first).not.toHaveProperty("content");
    const full = await w.ok("GET", `/memory_stores/${s.id}/memory_versions/${first.id}`);
    expect(full).toMatchObject({
      type: "memory_version",
      memory_id: m.id,
      content: "secret v1",
      redacted_at: null,
    });
    const redacted = await w.ok("POST", `/memory_stores/${s.id}/memory_versions/${first.id}/redact`);
    expect(redacted).toMatchObject({ content: null, redacted_at: expect.any(String) });
    expect(JSON.stringify((await w.control("GET", "/state")).body.memory_versions)).not.toContain(
      "secret v1",
    );
  });

  it("a delete records a `deleted` version", async () => {
    const s = await fixtures(w).store();
    const m = await w.ok("POST", mems(s.id), { path: "/a.md", content: "x" });
    await w.ok("DELETE", `${mems(s.id)}/${m.id}`);
    const list = await w.ok("GET", `/memory_stores/${s.id}/memory_versions?memory_id=${m.id}`);
    expect(list.data[0].operation).toBe("deleted");
  });
});
