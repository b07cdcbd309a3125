// Small helpers every handler uses: 404 as "gone", already-gone deletes, archived detection.

import { multipartFile, str } from "../common/handler-kit.js";
import { readLocalFile } from "../common/local-files.js";
import { isOwnedBy, listedOwnerOf, metadataPatch, withOwnership } from "../common/ownership.js";
import { findFirst, listAll, listReader } from "../common/paging.js";
import type { HttpClient, HttpRequest } from "../http.js";
import { ProviderHttpError } from "../http.js";
import type { HandlerContext, Owner, RemoteObject } from "../types.js";
import { UnforeseeableError } from "../unforeseeable.js";
import { METADATA_LIMITS } from "./ownership.js";
import type { DialectProfile } from "./profile.js";
import { isRecord, type Json } from "./spec.js";

/**
 * The object refresh listed for this id (given as the listing's promise while it is still walking
 * the pages), else a GET (404 as "gone").
 */
export async function listedOrGet(
  http: HttpClient,
  listed: unknown,
  req: Omit<HttpRequest, "method">,
): Promise<Json | "gone"> {
  const value = await listed;
  return isRecord(value) ? value : getOrGone(http, req);
}

export async function getOrGone(http: HttpClient, req: Omit<HttpRequest, "method">): Promise<Json | "gone"> {
  const response = await http.request<Json>({ ...req, method: "GET", allowStatus: [404] });
  if (response.status === 404) return "gone";
  return isRecord(response.body) ? response.body : {};
}

/** Runs a delete/archive; a 404 means it is already gone, which is what we wanted. */
export async function ignoreGone(action: () => Promise<unknown>): Promise<"done" | "gone"> {
  try {
    await action();
    return "done";
  } catch (error) {
    if (error instanceof ProviderHttpError && error.status === 404) return "gone";
    throw error;
  }
}

type Call = Pick<HandlerContext, "http" | "signal">;

/**
 * The calls every handler makes on its kind's collection (`/environments`, `/vaults`, …), with
 * the path written once: the list walk, adoption, refresh reads, deletes and metadata updates.
 */
export function dialectKind(
  profile: Pick<DialectProfile, "pageSize" | "metadataUpdate" | "listsShowFullObjects">,
  base: string,
) {
  const path = (id: string) => `${base}/${id}`;
  return {
    path,

    /** Every object of the account, page by page. */
    listAll: (ctx: Call, query?: Record<string, string | number | boolean>) =>
      listAll<Json>(ctx.http, base, {
        pageSize: profile.pageSize,
        signal: ctx.signal,
        ...(query ? { query } : {}),
      }),

    /** The handler's `listForRead`, where the provider's lists show whole objects. */
    listReader: () => listReader(profile, base),

    /** The handler's `findOwned`, with `toRemote` mapping the hit. */
    ownedFinder: (toRemote: Parameters<typeof ownedFinder>[2]) =>
      ownedFinder(base, profile.pageSize, toRemote),

    /** A handler's `read`: the listed object or a GET, where an archived object counts as gone. */
    async readLive(ctx: Call, listed: unknown, id: string): Promise<Json | "gone"> {
      const remote = await listedOrGet(ctx.http, listed, { path: path(id), signal: ctx.signal });
      return remote === "gone" || isArchived(remote) ? "gone" : remote;
    },

    /** A handler's `remove` by DELETE: an object already gone is removed. */
    async remove(ctx: Call, id: string): Promise<void> {
      await deleteIfPresent(ctx, path(id));
    },

    /**
     * Creates an object carrying our ownership metadata, then `fill`s it (seeds, credentials). If
     * filling fails the half-built object is removed (not aborted with the run, its own failure
     * swallowed) so a retry starts clean, and the fill's error is reported.
     */
    async createFilled<T>(
      ctx: HandlerContext,
      spec: Json,
      toWire: (metadata: Record<string, string>) => Json,
      fill: (id: string) => Promise<T>,
    ): Promise<{ created: Json; filled: T }> {
      const metadata = withOwnership(spec.metadata, ctx.owner, METADATA_LIMITS);
      const response = await ctx.http.request<Json>({
        method: "POST",
        path: base,
        json: toWire(metadata),
        signal: ctx.signal,
      });
      const id = idOf(response.body);
      try {
        return { created: response.body, filled: await fill(id) };
      } catch (error) {
        await ignoreGone(() => ctx.http.request({ method: "DELETE", path: path(id) })).catch(() => {});
        throw error;
      }
    },

    /**
     * The metadata an update sends: the declared map with our ownership keys, and where the dialect
     * patches metadata, a patch against what the object holds now (so dropped keys are removed).
     */
    async metadataForUpdate(
      ctx: HandlerContext,
      id: string,
      declaredMetadata: unknown,
    ): Promise<{ declared: Record<string, string>; metadata: Record<string, string | null> }> {
      const declared = withOwnership(declaredMetadata, ctx.owner, METADATA_LIMITS);
      if (profile.metadataUpdate !== "patch") return { declared, metadata: declared };
      const current = await getOrGone(ctx.http, { path: path(id), signal: ctx.signal });
      return {
        declared,
        metadata: current === "gone" ? declared : metadataPatch(current.metadata, declared),
      };
    },
  };
}

/** DELETE; an object already gone is removed. */
export async function deleteIfPresent(ctx: Call, path: string): Promise<void> {
  await ignoreGone(() => ctx.http.request({ method: "DELETE", path, signal: ctx.signal }));
}

/** A listing's object with the owner its metadata names, though it may lack the resource key. */
export function withListedOwner(listed: RemoteObject, metadata: unknown): RemoteObject {
  const owner = listedOwnerOf(metadata);
  return owner ? { ...listed, owner } : listed;
}

export function isArchived(remote: Json): boolean {
  return remote.archived_at !== undefined && remote.archived_at !== null;
}

export function idOf(remote: Json, ...keys: string[]): string {
  for (const key of [...keys, "id"]) {
    const value = str(remote[key]);
    if (value) return value;
  }
  throw new UnforeseeableError(
    "answer",
    `the provider answered without an id: ${JSON.stringify(remote).slice(0, 200)}`,
  );
}

export function isStatus(error: unknown, ...statuses: number[]): error is ProviderHttpError {
  return error instanceof ProviderHttpError && statuses.includes(error.status);
}

/**
 * Keeps the declared keys the remote cannot show back out of the comparison while keeping
 * the whole declaration for create/update: `desired` = declaration with canonical values for
 * the compared keys (a compared key missing from `canonical` is removed).
 */
export function overlay(spec: Json, canonical: Json, compared: readonly string[]): Json {
  const out: Json = { ...spec };
  for (const key of compared) {
    if (key in canonical) out[key] = canonical[key];
    else delete out[key];
  }
  return out;
}

/**
 * Uploads a local file (`POST /files`, multipart, the basename as its name) and returns the
 * provider's answer. `fields` are added to the form (provider_d's `purpose`).
 */
export async function uploadLocalFile(
  http: HttpClient,
  configDir: string,
  source: string,
  options: { fields?: Record<string, string>; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Json> {
  const { filename, bytes } = await readLocalFile(configDir, source);
  const response = await http.request<Json>({
    method: "POST",
    path: "/files",
    // No part type: the providers take the bytes as uploaded (application/octet-stream).
    body: multipartFile("file", bytes, filename, "", options.fields),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return response.body;
}

/** The first live (not archived) object of a list carrying this owner's two keys: adoption. */
export function findOwnedIn(
  http: HttpClient,
  path: string,
  owner: Owner,
  options: { pageSize: number; signal?: AbortSignal; exclude?: ReadonlySet<string> },
): Promise<Json | undefined> {
  return findFirst<Json>(
    http,
    path,
    (o) => isOwnedBy(o.metadata, owner) && !isArchived(o) && !options.exclude?.has(idOf(o)),
    options,
  );
}

/**
 * A handler's `findOwned`: the kind's pages walked for `owner` (passing over the `exclude` ids),
 * the hit mapped by `toRemote`.
 */
export function ownedFinder(
  path: string,
  pageSize: number,
  toRemote: (ctx: HandlerContext, hit: Json, owner: Owner) => RemoteObject | Promise<RemoteObject>,
): (ctx: HandlerContext, owner: Owner, exclude?: ReadonlySet<string>) => Promise<RemoteObject | undefined> {
  return async (ctx, owner, exclude) => {
    const hit = await findOwnedIn(ctx.http, path, owner, {
      pageSize,
      signal: ctx.signal,
      ...(exclude ? { exclude } : {}),
    });
    return hit ? toRemote(ctx, hit, owner) : undefined;
  };
}
