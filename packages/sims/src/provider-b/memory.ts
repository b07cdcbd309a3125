import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import { h } from "../kit/errors.js";
import { checkMetadata, patchMetadata, sha256 } from "../kit/records.js";
import { answer, getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import {
  archiveRoute,
  bad,
  type Ctx,
  conflict,
  domainItems,
  find,
  idempotent,
  listAfterId,
  missing,
  notArchived,
  stamp,
  updatedView,
  view,
} from "./common.js";
import type { Domain } from "./state.js";

/** Creates a store record; the Forward default store goes through here too. */
export function createStore(ctx: Ctx, domain: Domain, fields: Record<string, unknown>): Rec {
  return put(ctx.state, "memory_stores", {
    id: ctx.ids.next("memstore_"),
    type: "memory_store",
    name: fields.name,
    description: fields.description ?? "",
    metadata: fields.metadata ?? {},
    system_managed: fields.system_managed === true,
    ...stamp(ctx),
    archived_at: null,
    _domain: domain,
  });
}

/** Mounts that still hold a store: their identity exists and their template is not archived. */
function liveMounts(ctx: Ctx, storeId: string) {
  return ctx.state.mounts.filter((m) => {
    if (m.memory_store_id !== storeId) return false;
    const tmpl = ctx.state.objects.templates.get(m.template_id);
    return (
      ctx.state.objects.identities.has(m.identity_id) && tmpl !== undefined && tmpl.status !== "archived"
    );
  });
}

function checkPath(path: unknown): string {
  if (typeof path !== "string" || path === "") throw bad("path is required");
  if (path.startsWith("/")) throw bad("path must be relative (no leading /)");
  if (path.endsWith("/") || path.split("/").some((s) => s === "" || s === "." || s === "..")) {
    throw bad("path must be a relative file path without empty, . or .. segments");
  }
  return path;
}

export function memoryRoutes(r: Router, ctx: Ctx, domain: Domain): void {
  const store = (id: string) => find(ctx, "memory_stores", id, "memory store");
  /** The store a write names, which must not be archived. */
  const writableStore = (req: Request) => {
    const s = store(req.params.id as string);
    notArchived(s, "memory store");
    return s;
  };

  r.post(
    "/memory_stores",
    h((req, res) => {
      const b = body(req);
      const name = str(b, "name", true);
      const fields = { name, description: str(b, "description") ?? "", metadata: checkMetadata(b.metadata) };
      idempotent(ctx, req, res, () => view(createStore(ctx, domain, fields)));
    }),
  );
  r.get(
    "/memory_stores",
    answer((req) => listAfterId(ctx, req, domainItems(ctx, "memory_stores", domain, req))),
  );
  getView(r, "/memory_stores/:id", (req) => store(req.params.id as string));
  r.post(
    "/memory_stores/:id",
    h((req, res) => {
      const rec = writableStore(req);
      const b = body(req);
      if (b.name !== undefined) rec.name = str(b, "name", true);
      if (b.description !== undefined) rec.description = str(b, "description") ?? "";
      res.json(updatedView(ctx, rec, b.metadata));
    }),
  );
  archiveRoute(r, ctx, "/memory_stores/:id/archive", "memory store", (req) => store(req.params.id as string));
  if (domain === "managed") {
    // Permanent delete lives on the cloud gateway only, for stores of both domains.
    r.delete(
      "/memory_stores/:id",
      h((req, res) => {
        const rec = store(req.params.id as string);
        if (!rec.archived_at && liveMounts(ctx, rec.id).length) {
          throw conflict(`memory store ${rec.id} is still mounted`, "MEMORY_STORE_STILL_MOUNTED");
        }
        ctx.state.mounts = ctx.state.mounts.filter((m) => m.memory_store_id !== rec.id);
        for (const kind of ["memories", "memory_versions"] as const) {
          for (const m of [...ctx.state.objects[kind].values()])
            if (m.memory_store_id === rec.id) ctx.state.objects[kind].delete(m.id);
        }
        ctx.state.objects.memory_stores.delete(rec.id);
        res.json({ id: rec.id, type: "memory_store_deleted" });
      }),
    );
  }

  const memory = (req: Request) => {
    const s = store(req.params.id as string);
    const m = ctx.state.objects.memories.get(req.params.mid as string);
    if (!m || m.memory_store_id !== s.id) throw missing("memory", req.params.mid as string);
    return { s, m };
  };
  const record = (s: Rec, m: Rec, action: string) =>
    put(ctx.state, "memory_versions", {
      id: ctx.ids.next("memver_"),
      type: "memory_version",
      memory_store_id: s.id,
      store_id: s.id,
      entry_id: m.id,
      entry_path: m.path,
      action,
      content: action === "deleted" ? null : m.content,
      content_sha256: action === "deleted" ? null : m.content_sha256,
      created_at: ctx.clock.iso(),
      redacted_at: null,
    });
  // Memory objects carry `size` and `store_id` too (the names a client written elsewhere reads),
  // alongside `size_bytes` and `memory_store_id` (docs/wire/provider-b.md §3.6); derived here so
  // seeded records get them.
  const memoryView = (m: Rec, withContent: boolean) => {
    const v = view(m);
    if (v.type === "memory") {
      v.store_id = m.memory_store_id;
      v.size = m.size_bytes;
    }
    if (!withContent) delete v.content;
    return v;
  };

  r.post(
    "/memory_stores/:id/memories",
    h((req, res) => {
      const s = writableStore(req);
      const b = body(req);
      const path = checkPath(b.path);
      const content = str(b, "content");
      if (content === undefined) throw bad("content is required");
      for (const m of ctx.state.objects.memories.values()) {
        if (m.memory_store_id === s.id && m.path === path) {
          throw conflict(`a memory already exists at ${path} (${m.id})`, "MEMORY_PATH_CONFLICT");
        }
      }
      const m = put(ctx.state, "memories", {
        id: ctx.ids.next("mem_"),
        type: "memory",
        memory_store_id: s.id,
        path,
        content,
        content_sha256: sha256(content),
        size_bytes: Buffer.byteLength(content),
        metadata: checkMetadata(b.metadata),
        ...stamp(ctx),
      });
      record(s, m, "created");
      res.json(memoryView(m, true));
    }),
  );
  r.get(
    "/memory_stores/:id/memories",
    h((req, res) => {
      const s = store(req.params.id as string);
      res.json(listMemories(ctx, req, s.id, memoryView));
    }),
  );
  r.get(
    "/memory_stores/:id/memories/:mid",
    answer((req) => memoryView(memory(req).m, true)),
  );
  r.post(
    "/memory_stores/:id/memories/:mid",
    h((req, res) => {
      const { s, m } = memory(req);
      notArchived(s, "memory store");
      const b = body(req);
      if (b.path !== undefined && b.path !== m.path) throw bad("path cannot be changed; create a new memory");
      const expected = str(b, "content_sha256");
      if (expected !== undefined && expected !== m.content_sha256) {
        throw conflict("content_sha256 does not match the current content", "CONTENT_SHA256_MISMATCH");
      }
      const before = JSON.stringify([m.content, m.metadata]);
      const content = str(b, "content");
      if (content !== undefined) {
        m.content = content;
        m.content_sha256 = sha256(content);
        m.size_bytes = Buffer.byteLength(content);
      }
      m.metadata = patchMetadata(m.metadata as Record<string, string>, b.metadata);
      if (JSON.stringify([m.content, m.metadata]) !== before) {
        m.updated_at = ctx.clock.iso();
        record(s, m, "updated");
      }
      res.json(memoryView(m, true));
    }),
  );
  r.delete(
    "/memory_stores/:id/memories/:mid",
    h((req, res) => {
      const { s, m } = memory(req);
      notArchived(s, "memory store");
      ctx.state.objects.memories.delete(m.id);
      record(s, m, "deleted");
      res.json({ id: m.id, type: "memory_deleted" });
    }),
  );

  const version = (req: Request) => {
    const s = store(req.params.id as string);
    const v = ctx.state.objects.memory_versions.get(req.params.vid as string);
    if (!v || v.memory_store_id !== s.id) throw missing("memory version", req.params.vid as string);
    return v;
  };
  r.get(
    "/memory_stores/:id/versions",
    h((req, res) => {
      const s = store(req.params.id as string);
      const mid = req.query.memory_id;
      const items = [...ctx.state.objects.memory_versions.values()].filter(
        (v) => v.memory_store_id === s.id && (mid === undefined || v.entry_id === mid),
      );
      res.json(listAfterId(ctx, req, items));
    }),
  );
  getView(r, "/memory_stores/:id/versions/:vid", (req) => version(req));
  r.post(
    "/memory_stores/:id/versions/:vid/redact",
    h((req, res) => {
      const v = version(req);
      if (!v.redacted_at) Object.assign(v, { content: null, redacted_at: ctx.clock.iso() });
      res.json(view(v));
    }),
  );
}

/**
 * Memory listing with `prefix` and `depth`: entries deeper than `depth` segments below the prefix
 * collapse into one `memory_prefix` item, placed where its first member would be.
 */
function listMemories(ctx: Ctx, req: Request, storeId: string, render: (m: Rec, c: boolean) => unknown) {
  const prefix = typeof req.query.prefix === "string" ? req.query.prefix : "";
  const rawDepth = req.query.depth;
  const depth = rawDepth === undefined ? undefined : Number(rawDepth);
  if (depth !== undefined && (!Number.isInteger(depth) || depth < 1))
    throw bad("depth must be a positive integer");
  const items: Rec[] = [];
  const groups = new Set<string>();
  for (const m of ctx.state.objects.memories.values()) {
    if (m.memory_store_id !== storeId || !(m.path as string).startsWith(prefix)) continue;
    const segments = (m.path as string).slice(prefix.length).split("/");
    if (depth !== undefined && segments.length > depth) {
      const path = prefix + segments.slice(0, depth).join("/") + "/";
      if (groups.has(path)) continue;
      groups.add(path);
      // A group carries its first member's id as cursor, so after_id paging still works.
      items.push({ id: m.id, _prefix: path });
    } else {
      items.push(m);
    }
  }
  const page = listAfterId(ctx, req, items);
  const byId = new Map(items.map((i) => [i.id, i]));
  const data = page.data.map((v) => {
    const rec = byId.get(v.id as string)!;
    return rec._prefix ? { type: "memory_prefix", path: rec._prefix } : render(rec, false);
  });
  return { ...page, data };
}
