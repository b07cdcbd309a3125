// Helpers the provider_b handlers share: the client of a resource's API domain, adoption by
// owner, uploads, and the bounded retry used by memory-store deletes.

import { DeclarationError } from "../../common/errors.js";
import { getOrGone, isArchived, multipartFile, send, type Wire } from "../../common/handler-kit.js";
import { readLocalFile } from "../../common/local-files.js";
import { ownerOf, sameOwner } from "../../common/ownership.js";
import { firstMatch, listPagesAfterId, walkAfterId } from "../../common/paging.js";
import { delay, type HttpClient, ProviderHttpError } from "../../http.js";
import type { HandlerContext, KindHandler, ListContext, Owner, RemoteObject, Spec } from "../../types.js";
import { type ApiDomain, domainClient } from "../client.js";
import { derivedOf, domainOf } from "../derive.js";

export interface ProviderBOptions {
  /** Waits between retries of a memory-store delete that is still mounted (1, 2, 4, 8 s). */
  storeDeleteRetryMs: number[];
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const DEFAULT_PROVIDER_B_OPTIONS: ProviderBOptions = {
  storeDeleteRetryMs: [1_000, 2_000, 4_000, 8_000],
  sleep: delay,
};

export function client(ctx: HandlerContext, domain: ApiDomain): HttpClient {
  return domainClient(ctx, domain);
}

/** The domain of a resource: from its spec, else from what was recorded last time. */
export function specDomain(spec: Spec | undefined): ApiDomain | undefined {
  return spec ? derivedOf(spec).domain : undefined;
}

export function requireOneDomain(spec: Spec, what: string): ApiDomain {
  const conflict = derivedOf(spec).domain_conflict;
  if (conflict)
    throw new DeclarationError("provider_b.resource_shared_by_managed_and_forward", `${what}: ${conflict}`);
  return domainOf(spec);
}

/** The first live object of a list carrying this owner's keys, passing over the `exclude` ids. */
export function findOwnedIn(
  ctx: HandlerContext,
  http: HttpClient,
  path: string,
  owner: Owner,
  exclude?: ReadonlySet<string>,
): Promise<Wire | undefined> {
  return firstMatch(
    walkAfterId<Wire>(http, path, {}, ctx.signal),
    (item) => !isArchived(item) && !exclude?.has(String(item.id)) && sameOwner(ownerOf(item.metadata), owner),
  );
}

/**
 * GET on the recorded domain; an unknown domain (external ids) tries managed, then Forward. With
 * `thenOther`, a recorded domain that answers "gone" is followed by the other one.
 */
export async function readEither(
  ctx: HandlerContext,
  path: string,
  domain: ApiDomain | undefined,
  thenOther = false,
): Promise<{ wire: Wire; domain: ApiDomain } | "gone"> {
  const order: ApiDomain[] = !domain
    ? ["managed", "forward"]
    : thenOther
      ? [domain, domain === "managed" ? "forward" : "managed"]
      : [domain];
  for (const d of order) {
    const wire = await getOrGone(client(ctx, d), path, ctx.signal);
    if (wire !== "gone") return { wire, domain: d };
  }
  return "gone";
}

/**
 * A kind that lives on both API domains (environments, vaults, memory stores), with its
 * collection path written once: refresh's list reader, adoption, and refresh's read.
 */
export function bothDomainsKind(base: string) {
  return {
    listReader: () => bothDomainsListReader(base),
    ownedFinder: (toRemote: Parameters<typeof ownedOnEitherDomain>[1]) => ownedOnEitherDomain(base, toRemote),
    readLive: (
      ctx: HandlerContext,
      listed: unknown,
      id: string,
      domain: ApiDomain | undefined,
      external = false,
    ) => readLiveOn(ctx, listed, `${base}/${id}`, domain, external),
  };
}

/** A `findOwned` for a kind on both API domains: the Managed one first, then Forward. */
function ownedOnEitherDomain(
  path: string,
  toRemote: (ctx: HandlerContext, wire: Wire, domain: ApiDomain) => RemoteObject | Promise<RemoteObject>,
): NonNullable<KindHandler["findOwned"]> {
  return async (ctx, owner, exclude) => {
    for (const domain of ["managed", "forward"] as const) {
      const found = await findOwnedIn(ctx, client(ctx, domain), path, owner, exclude);
      if (found) return toRemote(ctx, found, domain);
    }
    return undefined;
  };
}

/**
 * A both-domain kind's refresh read: what refresh listed on the recorded domain, else a GET there
 * (`external`: the listed object of either domain, else a GET on the recorded one and then the
 * other). An archived object is gone.
 */
async function readLiveOn(
  ctx: HandlerContext,
  listed: unknown,
  path: string,
  domain: ApiDomain | undefined,
  external = false,
): Promise<Listed | "gone"> {
  const found =
    (await listedOn(listed, external ? undefined : domain)) ??
    (await readEither(ctx, path, domain, external));
  return found === "gone" || found.wire.archived_at ? "gone" : found;
}

/** What plan from lists found for one id: the object as its domain's list showed it. */
export interface Listed {
  wire: Wire;
  domain: ApiDomain;
}

/**
 * Plan from lists over `limit` + `after_id` lists whose items are the objects exactly as their
 * GET returns them. `paths` names, per domain, the list to walk and the ids it can hold; the
 * domains are walked one after the other, each only until every id it can hold has been seen, so
 * a project with nothing on the Forward API never walks it past that.
 */
export function afterIdListReader(
  paths: (ids: ReadonlySet<string>) => { domain: ApiDomain; path: string; ids: ReadonlySet<string> }[],
): Pick<KindHandler, "listForRead"> {
  return {
    async listForRead(ctx: ListContext, ids) {
      const found = new Map<string, Listed>();
      for (const { domain, path, ids: wanted } of paths(ids)) {
        if (wanted.size === 0) continue;
        let seen = 0;
        const pages = listPagesAfterId<Wire>(domainClient(ctx, domain), path, { signal: ctx.signal });
        for await (const page of pages) {
          for (const wire of page) {
            const id = String(wire.id);
            if (!wanted.has(id) || found.has(id)) continue;
            found.set(id, { wire, domain });
            seen++;
          }
          if (seen === wanted.size || found.size === ids.size) break;
        }
        if (found.size === ids.size) break;
      }
      return found;
    },
  };
}

/** An id's list reader on both domains: Managed first, then Forward for what it did not show. */
export const bothDomainsListReader = (path: string) =>
  afterIdListReader((ids) => [
    { domain: "managed", path, ids },
    { domain: "forward", path, ids },
  ]);

/** A Forward-only kind's list reader (identities, channels). */
export const forwardListReader = (path: string) =>
  afterIdListReader((ids) => [{ domain: "forward", path, ids }]);

/**
 * The listed object for this read, when refresh listed it on a domain the read would accept
 * (`domain` undefined: either); undefined sends the read to its own GET, which decides "gone".
 */
export async function listedOn(listed: unknown, domain: ApiDomain | undefined): Promise<Listed | undefined> {
  const value = (await listed) as Listed | undefined;
  if (!value || typeof value !== "object" || !value.wire || typeof value.wire !== "object") return undefined;
  return domain === undefined || value.domain === domain ? value : undefined;
}

export async function uploadFile(
  ctx: HandlerContext,
  http: HttpClient,
  source: string,
  purpose: string,
): Promise<{ id: string; sha256: string }> {
  const local = await readLocalFile(ctx.configDir, source);
  const form = multipartFile("file", local.bytes, local.filename, local.mimeType, {
    name: local.filename,
    purpose,
  });
  const created = await send(ctx, http, { method: "POST", path: "/files", body: form });
  return { id: String(created.file_id ?? created.id), sha256: local.sha256 };
}

const RETRY_DELETE_STATUSES = new Set([409, 429, 500, 502, 503]);

/**
 * Permanent memory-store delete (always on the cloud domain). "Still mounted" / "already
 * archived" conflicts and 429/5xx are retried after each configured delay; if it still fails,
 * archive followed by delete is tried. Authentication, permission and validation errors fail at once.
 */
export async function deleteMemoryStorePermanently(
  ctx: HandlerContext,
  opts: ProviderBOptions,
  storeId: string,
): Promise<void> {
  const managed = client(ctx, "managed");
  const attempt = async () => {
    await managed.request({
      method: "DELETE",
      path: `/memory_stores/${storeId}`,
      allowStatus: [404],
      signal: ctx.signal,
    });
  };
  const retryable = (e: unknown) => e instanceof ProviderHttpError && RETRY_DELETE_STATUSES.has(e.status);
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error)) throw error;
      const wait = opts.storeDeleteRetryMs[i];
      if (wait === undefined) break;
      await opts.sleep(wait, ctx.signal);
    }
  }
  await managed.request({
    method: "POST",
    path: `/memory_stores/${storeId}/archive`,
    json: {},
    allowStatus: [404, 409],
    signal: ctx.signal,
  });
  await attempt();
}
