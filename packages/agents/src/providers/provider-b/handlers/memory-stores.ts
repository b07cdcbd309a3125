import { randomUUID } from "node:crypto";
// provider_b memory stores (both domains; permanent delete always on the cloud domain). Declared
// entries are managed seeds: created when missing, updated when their content changed (with the
// remote sha256 as precondition), and every other memory is left as the agents wrote it.
import { send, type Wire } from "../../common/handler-kit.js";
import { sha256 } from "../../common/local-files.js";
import { logicalName, metadataPatch, ownerOf, userMetadata, withOwnership } from "../../common/ownership.js";
import { collect, walkAfterId } from "../../common/paging.js";
import type { HandlerContext, KindHandler, PriorState, RemoteObject, Spec } from "../../types.js";
import type { ApiDomain } from "../client.js";
import { listMemoryStores, readMemorySeeds } from "../listing.js";
import {
  type MemoryStoreDecl,
  memoryPath,
  planSeeds,
  type RemoteMemory,
  seedContents,
} from "../mappers/memory-store.js";
import {
  bothDomainsKind,
  client,
  DEFAULT_PROVIDER_B_OPTIONS,
  deleteMemoryStorePermanently,
  type ProviderBOptions,
  requireOneDomain,
  specDomain,
} from "./shared.js";

async function listMemories(
  ctx: HandlerContext,
  domain: ApiDomain,
  storeId: string,
): Promise<RemoteMemory[]> {
  return collect(
    walkAfterId<RemoteMemory>(client(ctx, domain), `/memory_stores/${storeId}/memories`, {}, ctx.signal),
  );
}

async function applySeeds(
  ctx: HandlerContext,
  domain: ApiDomain,
  storeId: string,
  decl: MemoryStoreDecl,
  fresh: boolean,
): Promise<void> {
  const http = client(ctx, domain);
  // A store we just created holds nothing yet: no list call needed.
  const remote = fresh || !decl.entries?.length ? [] : await listMemories(ctx, domain, storeId);
  const actions = planSeeds(decl.entries, remote);
  for (const a of actions) {
    if (a.action === "create") {
      await send(ctx, http, {
        method: "POST",
        path: `/memory_stores/${storeId}/memories`,
        json: { path: a.path, content: a.content },
      });
    } else {
      await send(ctx, http, {
        method: "POST",
        path: `/memory_stores/${storeId}/memories/${a.id}`,
        json: { content: a.content, ...(a.expectedSha256 ? { content_sha256: a.expectedSha256 } : {}) },
      });
    }
  }
}

async function toRemote(
  ctx: HandlerContext,
  wire: Wire,
  domain: ApiDomain,
  lastApplied?: Record<string, unknown>,
): Promise<RemoteObject> {
  const id = String(wire.id);
  const spec: Spec = {
    ...(typeof wire.description === "string" && wire.description ? { description: wire.description } : {}),
    metadata: userMetadata(wire.metadata),
    derived: { domain },
  };
  if (lastApplied) {
    // Only the declared seeds are compared; memories the agents wrote are theirs. The list gives
    // each memory's sha256: a seed still holding the last-applied text is shown as that text, and
    // only one that changed is fetched, so a plan shows text as provider_c/d's do, not digests.
    const remote = new Map((await listMemories(ctx, domain, id)).map((m) => [m.path.replace(/^\/+/, ""), m]));
    const entries: Record<string, string | null> = {};
    for (const [path, applied] of Object.entries(lastApplied)) {
      const memory = remote.get(path);
      if (!memory) entries[path] = null;
      else if (typeof applied === "string" && memory.content_sha256 === sha256(applied))
        entries[path] = applied;
      else entries[path] = await memoryContent(ctx, domain, id, memory.id);
    }
    spec.entries = entries;
  }
  return { id, spec, owner: ownerOf(wire.metadata), extra: { domain, name: wire.name } };
}

async function memoryContent(
  ctx: HandlerContext,
  domain: ApiDomain,
  storeId: string,
  memoryId: string,
): Promise<string | null> {
  const res = await client(ctx, domain).request<{ content?: unknown }>({
    method: "GET",
    path: `/memory_stores/${storeId}/memories/${memoryId}`,
    allowStatus: [404],
    signal: ctx.signal,
  });
  return typeof res.body?.content === "string" ? res.body.content : null;
}

/** Right after seeding, every declared path holds exactly the declared content. */
function withSeeds(remote: RemoteObject, decl: MemoryStoreDecl): RemoteObject {
  if (decl.entries?.length) remote.spec.entries = seedContents(decl.entries);
  return remote;
}

function lastAppliedSeeds(prior: PriorState | undefined): Record<string, unknown> | undefined {
  const entries = prior?.spec.entries;
  return entries && typeof entries === "object" ? (entries as Record<string, unknown>) : undefined;
}

const kind = bothDomainsKind("/memory_stores");

export function createMemoryStoreHandler(opts: ProviderBOptions = DEFAULT_PROVIDER_B_OPTIONS): KindHandler {
  return {
    list: listMemoryStores,
    readDeclared: readMemorySeeds,
    replaceOn: ["derived.domain"],
    desired(spec) {
      const decl = spec as MemoryStoreDecl;
      return {
        ...(decl.description ? { description: decl.description } : {}),
        metadata: { ...(decl.metadata ?? {}) },
        ...(decl.entries?.length ? { entries: seedContents(decl.entries) } : {}),
        derived: { domain: requireOneDomain(spec, "memory store") },
      };
    },
    async create(ctx, spec) {
      const domain = requireOneDomain(spec, logicalName(ctx.owner));
      const decl = spec as MemoryStoreDecl;
      for (const e of decl.entries ?? []) memoryPath(e.key);
      const store = await send(ctx, client(ctx, domain), {
        method: "POST",
        path: "/memory_stores",
        json: {
          name: logicalName(ctx.owner),
          description: decl.description ?? "",
          // Ownership keys (REF omits them here) make a store from an interrupted run adoptable.
          metadata: withOwnership(decl.metadata, ctx.owner),
        },
        ...(domain === "forward" ? { headers: { "idempotency-key": randomUUID() }, idempotent: true } : {}),
      });
      try {
        await applySeeds(ctx, domain, String(store.id), decl, true);
      } catch (error) {
        // As the reference does: a store whose seeds failed is removed, so a re-run starts clean.
        await deleteMemoryStorePermanently(ctx, { ...opts, storeDeleteRetryMs: [] }, String(store.id)).catch(
          () => {},
        );
        throw error;
      }
      return withSeeds(await toRemote(ctx, store, domain), decl);
    },
    ...kind.listReader(),
    async read(ctx, id, prior, listed) {
      const domain = specDomain(prior?.spec);
      const found = await kind.readLive(ctx, listed, id, domain);
      if (found === "gone") return "gone";
      return toRemote(ctx, found.wire, found.domain, lastAppliedSeeds(prior));
    },
    async update(ctx, id, spec) {
      const domain = requireOneDomain(spec, logicalName(ctx.owner));
      const http = client(ctx, domain);
      const decl = spec as MemoryStoreDecl;
      const current = await send(ctx, http, { method: "GET", path: `/memory_stores/${id}` });
      const updated = await send(ctx, http, {
        method: "POST",
        path: `/memory_stores/${id}`,
        json: {
          description: decl.description ?? "",
          metadata: metadataPatch(current.metadata, decl.metadata ?? {}),
        },
      });
      await applySeeds(ctx, domain, id, decl, false);
      return withSeeds(await toRemote(ctx, { ...current, ...updated, id }, domain), decl);
    },
    async remove(ctx, id) {
      await deleteMemoryStorePermanently(ctx, opts, id);
    },
    findOwned: kind.ownedFinder((ctx, wire, domain) => toRemote(ctx, wire, domain)),
  };
}
