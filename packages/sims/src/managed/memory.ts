import { createHash } from "node:crypto";
import type { Request, Router } from "express";
import { archive, assertNotArchived, deleted, listPage, lookup, newObject, param } from "./common.js";
import { ApiError, invalid, notFound, providerDCode } from "./errors.js";
import { pageParams, paginate, queryInt, queryString } from "./http.js";
import type { Kit, Obj } from "./state.js";
import {
  allowOnly,
  body,
  checkString,
  createMetadata,
  type JsonObject,
  optString,
  reqString,
  requireObject,
  updateMetadata,
} from "./validate.js";

const MAX_PATH_BYTES = 1024;
const MAX_SEGMENTS = 20;
const MAX_CONTENT_BYTES = 100 * 1024;
const FULL_VIEW_MAX = 20;
const MAX_BATCH = 100;

export const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

export function checkPath(raw: unknown, where = "path"): string {
  const path = checkString(raw, where, { min: 1 }).normalize("NFC");
  if (!path.startsWith("/")) throw invalid(`${where}: must be absolute (start with "/")`);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES)
    throw invalid(`${where}: longer than ${MAX_PATH_BYTES} bytes`);
  const segments = path.slice(1).split("/");
  if (segments.length > MAX_SEGMENTS) throw invalid(`${where}: more than ${MAX_SEGMENTS} segments`);
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    throw invalid(`${where}: empty, "." or ".." segments are not allowed`);
  }
  return path;
}

function checkContent(raw: unknown, where = "content"): string {
  const content = checkString(raw, where);
  if (Buffer.byteLength(content) > MAX_CONTENT_BYTES) throw invalid(`${where}: larger than 100 kB`);
  return content;
}

export function memoryRoutes(router: Router, kit: Kit): void {
  const withVersions = kit.dialect.memoryVersions;
  const archivable = kit.dialect.archivable.has("memory_store");
  const store = (id: string) => lookup(kit.state().memoryStores, id, "memory_store");

  function pathConflict(storeId: string, path: string, selfId?: string): ApiError | undefined {
    for (const m of kit.state().memories.values()) {
      if (m.memory_store_id === storeId && m.path === path && m.id !== selfId) {
        return withVersions
          ? new ApiError(409, "memory_path_conflict_error", `a memory already exists at ${path}`, {
              conflicting_memory_id: m.id,
              conflicting_path: path,
            })
          : new ApiError(
              409,
              "conflict_error",
              `path: "${path}" already exists in memory store ${storeId}`,
              {},
              "ResourceConflict",
            );
      }
    }
    return undefined;
  }

  function addVersion(m: Obj, operation: "created" | "modified" | "deleted"): void {
    if (!withVersions) return;
    const v: Obj = {
      id: kit.newId("memory_version"),
      type: "memory_version",
      memory_store_id: m.memory_store_id,
      memory_id: m.id,
      operation,
      path: m.path,
      content: operation === "deleted" ? null : m.content,
      content_sha256: m.content_sha256,
      content_size_bytes: m.content_size_bytes,
      created_at: kit.now(),
      redacted_at: null,
    };
    kit.state().memoryVersions.set(v.id, v);
    if (operation !== "deleted") m.memory_version_id = v.id;
  }

  function writeMemory(storeId: string, path: string, content: string): Obj {
    const now = kit.now();
    const m: Obj = {
      id: kit.newId("memory"),
      type: "memory",
      memory_store_id: storeId,
      path,
      content,
      content_sha256: sha256(content),
      content_size_bytes: Buffer.byteLength(content),
      created_at: now,
      updated_at: now,
    };
    if (withVersions) m.memory_version_id = null;
    addVersion(m, "created");
    kit.state().memories.set(m.id, m);
    return m;
  }

  function view(req: Request, fallback: "basic" | "full"): "basic" | "full" {
    if (!withVersions) return "full";
    const v = queryString(req.query, "view") ?? fallback;
    if (v !== "basic" && v !== "full") throw invalid(`view: must be "basic" or "full"`);
    return v;
  }
  const render = (m: Obj, v: "basic" | "full") => {
    if (v === "full") return m;
    const { content: _content, ...rest } = m;
    return rest;
  };

  router.post("/memory_stores", (req, res) => {
    const b = body(req.body);
    allowOnly(b, ["name", "description", "metadata"]);
    const s = newObject(
      kit,
      "memory_store",
      () => ({
        name: reqString(b, "name", { min: 1, max: 255 }),
        description: optString(b, "description", { max: 1024 }) ?? null,
        metadata: createMetadata(b.metadata),
      }),
      archivable,
    );
    kit.state().memoryStores.set(s.id, s);
    res.json(s);
  });
  router.get("/memory_stores", (req, res) => {
    res.json(listPage(kit, req, kit.state().memoryStores.values(), { archivable }));
  });
  router.get("/memory_stores/:id", (req, res) => {
    res.json(store(param(req, "id")));
  });
  router.post("/memory_stores/:id", (req, res) => {
    const s = store(param(req, "id"));
    assertNotArchived(s, "memory_store");
    const b = body(req.body);
    allowOnly(b, ["name", "description", "metadata"]);
    const next: Obj = { ...s, updated_at: kit.now() };
    if (b.name !== undefined) next.name = reqString(b, "name", { min: 1, max: 255 });
    if (b.description !== undefined) next.description = optString(b, "description", { max: 1024 }) ?? null;
    next.metadata = updateMetadata(s.metadata, b.metadata, kit.dialect.metadataUpdate);
    kit.state().memoryStores.set(s.id, next);
    res.json(next);
  });
  router.delete("/memory_stores/:id", (req, res) => {
    const st = kit.state();
    const s = store(param(req, "id"));
    for (const m of [...st.memories.values()]) if (m.memory_store_id === s.id) st.memories.delete(m.id);
    for (const v of [...st.memoryVersions.values()])
      if (v.memory_store_id === s.id) st.memoryVersions.delete(v.id);
    st.memoryStores.delete(s.id);
    res.json(deleted(s.id, "memory_store"));
  });
  if (archivable) {
    router.post("/memory_stores/:id/archive", (req, res) => {
      res.json(archive(kit, store(param(req, "id"))));
    });
  }

  const memory = (storeId: string, id: string) => {
    const m = kit.state().memories.get(id);
    if (!m || m.memory_store_id !== storeId) throw notFound("memory", id);
    return m;
  };

  router.post("/memory_stores/:sid/memories", (req, res) => {
    const s = store(param(req, "sid"));
    assertNotArchived(s, "memory_store");
    const b = body(req.body);
    allowOnly(b, ["path", "content"]);
    const path = checkPath(b.path);
    const content = checkContent(reqField(b, "content"));
    const clash = pathConflict(s.id, path);
    if (clash) throw clash;
    res.json(render(writeMemory(s.id, path, content), view(req, "full")));
  });

  if (!withVersions) {
    router.post("/memory_stores/:sid/memories/batch_create", (req, res) => {
      const s = store(param(req, "sid"));
      const b = body(req.body);
      allowOnly(b, ["items", "on_conflict"]);
      const onConflict = b.on_conflict ?? "fail";
      if (onConflict !== "fail" && onConflict !== "overwrite")
        throw invalid(`on_conflict: must be "overwrite" or "fail"`);
      if (!Array.isArray(b.items) || b.items.length < 1 || b.items.length > MAX_BATCH) {
        throw invalid(`items: expected 1-${MAX_BATCH} entries`);
      }
      const results = b.items.map((raw, i) => {
        const reported = (raw as JsonObject | null)?.path;
        try {
          const item = requireObject(raw, `items[${i}]`);
          allowOnly(item, ["path", "content"], `items[${i}]`);
          const path = checkPath(item.path, `items[${i}].path`);
          const content = checkContent(
            reqField(item, "content", `items[${i}].content`),
            `items[${i}].content`,
          );
          const existing = [...kit.state().memories.values()].find(
            (m) => m.memory_store_id === s.id && m.path === path,
          );
          if (existing && onConflict === "fail") throw pathConflict(s.id, path) as ApiError;
          if (existing) {
            Object.assign(existing, {
              content,
              content_sha256: sha256(content),
              content_size_bytes: Buffer.byteLength(content),
              updated_at: kit.now(),
            });
            return { path, memory: existing };
          }
          return { path, memory: writeMemory(s.id, path, content) };
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          return { path: reported ?? null, error: { type: providerDCode(e), message: e.message } };
        }
      });
      res.json({ results });
    });
  }

  router.get("/memory_stores/:sid/memories", (req, res) => {
    const s = store(param(req, "sid"));
    const v = view(req, "basic");
    const prefix = queryString(req.query, "path_prefix") ?? "/";
    if (!prefix.startsWith("/")) throw invalid(`path_prefix: must start with "/"`);
    const depth = queryInt(req.query, "depth", 1, MAX_SEGMENTS);
    const items = new Map<string, JsonObject | Obj>();
    for (const m of kit.state().memories.values()) {
      if (m.memory_store_id !== s.id || !m.path.startsWith(prefix)) continue;
      const rest = m.path.slice(prefix.length).replace(/^\//, "").split("/");
      if (depth !== undefined && rest.length > depth) {
        const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
        const p = `${base}${rest.slice(0, depth).join("/")}/`;
        items.set(p, { type: "memory_prefix", path: p });
      } else items.set(m.path, render(m, v));
    }
    const limits =
      v === "full"
        ? { defaultLimit: Math.min(kit.dialect.limits.defaultLimit, FULL_VIEW_MAX), maxLimit: FULL_VIEW_MAX }
        : kit.dialect.limits;
    const params = pageParams(
      { ...req.query, limit: clampLimit(req.query.limit, limits.maxLimit) } as typeof req.query,
      limits,
      "asc",
    );
    res.json(paginate(items.values(), (i) => [i.path as string], params));
  });

  router.get("/memory_stores/:sid/memories/:mid", (req, res) => {
    store(param(req, "sid"));
    res.json(render(memory(param(req, "sid"), param(req, "mid")), view(req, "full")));
  });

  router.post("/memory_stores/:sid/memories/:mid", (req, res) => {
    const s = store(param(req, "sid"));
    assertNotArchived(s, "memory_store");
    const m = memory(s.id, param(req, "mid"));
    const b = body(req.body);
    allowOnly(b, withVersions ? ["path", "content", "precondition"] : ["path", "content"]);
    if (b.precondition !== undefined) {
      const p = requireObject(b.precondition, "precondition");
      allowOnly(p, ["type", "content_sha256"], "precondition");
      if (p.type !== "content_sha256") throw invalid(`precondition.type: must be "content_sha256"`);
      const expected = checkString(p.content_sha256, "precondition.content_sha256");
      if (expected.toLowerCase() !== m.content_sha256) {
        throw new ApiError(
          409,
          "memory_precondition_failed_error",
          `memory ${m.id} content does not match content_sha256 ${expected}`,
        );
      }
    }
    const path = b.path === undefined ? m.path : checkPath(b.path);
    const content = b.content === undefined ? m.content : checkContent(b.content);
    const clash = path !== m.path ? pathConflict(s.id, path, m.id) : undefined;
    if (clash) throw clash;
    if (path !== m.path || content !== m.content) {
      Object.assign(m, {
        path,
        content,
        content_sha256: sha256(content),
        content_size_bytes: Buffer.byteLength(content),
        updated_at: kit.now(),
      });
      addVersion(m, "modified");
    }
    res.json(render(m, view(req, "full")));
  });

  router.delete("/memory_stores/:sid/memories/:mid", (req, res) => {
    const s = store(param(req, "sid"));
    const m = memory(s.id, param(req, "mid"));
    const expected = withVersions ? queryString(req.query, "expected_content_sha256") : undefined;
    if (expected !== undefined && expected.toLowerCase() !== m.content_sha256) {
      throw new ApiError(
        409,
        "memory_precondition_failed_error",
        `memory ${m.id} content does not match ${expected}`,
      );
    }
    addVersion(m, "deleted");
    kit.state().memories.delete(m.id);
    res.json(deleted(m.id, "memory"));
  });

  if (withVersions) {
    const version = (storeId: string, id: string) => {
      const v = kit.state().memoryVersions.get(id);
      if (!v || v.memory_store_id !== storeId) throw notFound("memory_version", id);
      return v;
    };
    router.get("/memory_stores/:sid/memory_versions", (req, res) => {
      const s = store(param(req, "sid"));
      const memoryId = queryString(req.query, "memory_id");
      const v = view(req, "basic");
      const page = listPage(kit, req, kit.state().memoryVersions.values(), {
        filter: (x) => x.memory_store_id === s.id && (memoryId === undefined || x.memory_id === memoryId),
      });
      res.json({ ...page, data: page.data.map((x) => render(x, v)) });
    });
    router.get("/memory_stores/:sid/memory_versions/:vid", (req, res) => {
      store(param(req, "sid"));
      res.json(version(param(req, "sid"), param(req, "vid")));
    });
    router.post("/memory_stores/:sid/memory_versions/:vid/redact", (req, res) => {
      store(param(req, "sid"));
      const v = version(param(req, "sid"), param(req, "vid"));
      if (!v.redacted_at) {
        v.content = null;
        v.redacted_at = kit.now();
      }
      res.json(v);
    });
  }
}

/** A full view caps a page at 20: larger limits are lowered rather than refused. */
function clampLimit(raw: unknown, max: number): unknown {
  if (typeof raw !== "string" || raw === "") return raw;
  const n = Number(raw);
  return Number.isInteger(n) && n > max ? String(max) : raw;
}

function reqField(o: JsonObject, key: string, where = key): unknown {
  if (o[key] === undefined || o[key] === null) throw invalid(`${where}: Field required`);
  return o[key];
}
