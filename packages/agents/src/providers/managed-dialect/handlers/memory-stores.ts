// Memory stores with declared entries as managed seeds: create or rewrite the declared paths,
// never touch other memories. provider_c guards rewrites with a content_sha256 precondition;
// provider_d has none (last write wins) but can batch-create.

import { logicalNameOf } from "../../../model/address.js";
import { str } from "../../common/handler-kit.js";
import { ownerOf } from "../../common/ownership.js";
import { listAll } from "../../common/paging.js";
import type { HandlerContext, KindHandler, ListContext, RemoteObject, Spec } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import {
  canonicalMemoryStore,
  contentSha256,
  memoryPath,
  memoryStoreFromWire,
  memoryStoreToWire,
  planSeeds,
  type SeedEntry,
  seedEntries,
} from "../memory.js";
import type { DialectProfile } from "../profile.js";
import { dialectKind, getOrGone, idOf, isArchived, isStatus, overlay, withListedOwner } from "../remote.js";
import { isRecord, type Json, records } from "../spec.js";

const COMPARED = ["description", "metadata", "entries"] as const;

interface RemoteMemory {
  id: string;
  content_sha256?: string | undefined;
  content?: string | undefined;
}

export function memoryStoreHandler(profile: DialectProfile): KindHandler {
  const kind = dialectKind(profile, "/memory_stores");
  const base = kind.path;

  async function memoriesByPath(
    ctx: Pick<HandlerContext, "http" | "signal">,
    storeId: string,
  ): Promise<Map<string, RemoteMemory>> {
    const items = await listAll<Json>(ctx.http, `${base(storeId)}/memories`, {
      pageSize: profile.pageSize,
      signal: ctx.signal,
      ...(profile.memoryListView ? { query: { view: "basic" } } : {}),
    });
    const out = new Map<string, RemoteMemory>();
    for (const item of items) {
      const path = str(item.path);
      if (item.type === "memory_prefix" || !path) continue;
      out.set(path, { id: idOf(item), content_sha256: str(item.content_sha256), content: str(item.content) });
    }
    return out;
  }

  async function memoryContent(
    ctx: Pick<HandlerContext, "http" | "signal">,
    storeId: string,
    memory: RemoteMemory,
  ): Promise<string | undefined> {
    if (memory.content !== undefined) return memory.content;
    const remote = await getOrGone(ctx.http, {
      path: `${base(storeId)}/memories/${memory.id}`,
      signal: ctx.signal,
      ...(profile.memoryListView ? { query: { view: "full" } } : {}),
    });
    return remote === "gone" ? undefined : str(remote.content);
  }

  async function writeSeeds(ctx: HandlerContext, storeId: string, entries: SeedEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const existing = await memoriesByPath(ctx, storeId);
    const plan = planSeeds(entries, existing);
    if (profile.memoryBatchCreate) {
      const items = [...plan.create, ...plan.rewrite].map((e) => ({ path: e.path, content: e.content }));
      if (items.length === 0) return;
      const response = await ctx.http.request<Json>({
        method: "POST",
        path: `${base(storeId)}/memories/batch_create`,
        json: { items, on_conflict: "overwrite" },
        signal: ctx.signal,
      });
      const failed = records(response.body?.results).filter((r) => isRecord(r.error));
      if (failed.length > 0) {
        const first = failed[0];
        const error = first && isRecord(first.error) ? first.error : {};
        throw new UnforeseeableError(
          "answer",
          `${failed.length} memory entr${failed.length === 1 ? "y" : "ies"} failed, first ${String(first?.path)}: ` +
            `${String(error.type ?? error.code)}: ${String(error.message)}`,
        );
      }
      return;
    }
    for (const entry of plan.create)
      await ctx.http.request({
        method: "POST",
        path: `${base(storeId)}/memories`,
        json: { path: entry.path, content: entry.content },
        signal: ctx.signal,
      });
    for (const entry of plan.rewrite) {
      try {
        await ctx.http.request({
          method: "POST",
          path: `${base(storeId)}/memories/${entry.id}`,
          json: {
            content: entry.content,
            ...(profile.memoryPreconditions
              ? { precondition: { type: "content_sha256", content_sha256: entry.remoteSha } }
              : {}),
          },
          signal: ctx.signal,
        });
      } catch (error) {
        if (isStatus(error, 409))
          throw new UnforeseeableError(
            "remote",
            `memory ${entry.path} changed while apply was rewriting it (${error.code}); run apply again`,
          );
        throw error;
      }
    }
  }

  async function toRemote(
    ctx: HandlerContext,
    remote: Json,
    declared: Json | undefined,
  ): Promise<RemoteObject> {
    const id = idOf(remote);
    const contents = new Map<string, string>();
    const entries = declared ? seedEntries(declared) : [];
    const memories = entries.length > 0 ? await memoriesByPath(ctx, id) : new Map<string, RemoteMemory>();
    for (const entry of entries) {
      const memory = memories.get(entry.path);
      if (!memory) continue;
      // Unchanged seeds are recognised by digest alone; only rewritten ones are fetched.
      const content =
        memory.content_sha256 === contentSha256(entry.content)
          ? entry.content
          : await memoryContent(ctx, id, memory);
      if (content !== undefined) contents.set(entry.path, content);
    }
    const declaredKeys = keysOf(declared);
    const owner = ownerOf(remote.metadata);
    return {
      id,
      spec: memoryStoreFromWire(remote, declaredKeys, contents),
      ...(owner ? { owner } : {}),
      archived: isArchived(remote),
    };
  }

  const keysOf = (spec: Json | undefined) => records(spec?.entries).map((e) => str(e.key) ?? "");

  const findOwned = kind.ownedFinder((ctx, hit) => toRemote(ctx, hit, undefined));

  // Every store of the account with its description and metadata only: the memories in it are
  // the agents' own (sync must never import them), and the declared seeds are apply's to write,
  // so `entries` is left out and the file keeps its seeds as declared.
  async function list(ctx: ListContext): Promise<RemoteObject[]> {
    return (await kind.listAll(ctx)).map((remote) =>
      withListedOwner(
        { id: idOf(remote), spec: memoryStoreFromWire(remote, [], new Map()), archived: isArchived(remote) },
        remote.metadata,
      ),
    );
  }

  // The declared seeds as the provider now holds them; a seed that is gone remotely keeps its
  // declared content (apply writes it again), and no other memory is read.
  async function readDeclared(ctx: ListContext, id: string, declared: Spec): Promise<Spec> {
    const entries = records(declared.entries);
    if (entries.length === 0) return {};
    const memories = await memoriesByPath(ctx, id);
    const out: Json[] = [];
    for (const entry of entries) {
      const key = str(entry.key) ?? "";
      const content = str(entry.content) ?? "";
      const memory = memories.get(memoryPath(key));
      const changed = memory && memory.content_sha256 !== contentSha256(content);
      out.push({ key, content: (changed ? await memoryContent(ctx, id, memory) : undefined) ?? content });
    }
    return { entries: out };
  }

  return {
    desired: (spec) => overlay(spec, canonicalMemoryStore(spec), COMPARED),
    list,
    readDeclared,

    async create(ctx, spec) {
      const entries = seedEntries(spec);
      const logical = logicalNameOf(ctx.owner.resource);
      // A store without its seeds would be adopted as if complete: a failed seed write removes it.
      const { created } = await kind.createFilled(
        ctx,
        spec,
        (metadata) => memoryStoreToWire(spec, logical, metadata),
        (id) => writeSeeds(ctx, id, entries),
      );
      return toRemote(ctx, created, spec);
    },

    ...kind.listReader(),

    async read(ctx, id, prior, listed) {
      const remote = await kind.readLive(ctx, listed, id);
      if (remote === "gone") return "gone";
      return toRemote(ctx, remote, prior?.spec);
    },

    async update(ctx, id, spec) {
      const { metadata } = await kind.metadataForUpdate(ctx, id, spec.metadata);
      const response = await ctx.http.request<Json>({
        method: "POST",
        path: base(id),
        json: { description: str(spec.description) ?? "", metadata },
        signal: ctx.signal,
      });
      await writeSeeds(ctx, id, seedEntries(spec));
      return toRemote(ctx, response.body, spec);
    },

    async remove(ctx, id) {
      await kind.remove(ctx, id);
    },

    findOwned,
  };
}
