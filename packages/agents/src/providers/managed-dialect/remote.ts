// Small helpers every handler uses: 404 as "gone", already-gone deletes, archived detection.

import { multipartFile, str } from "../common/handler-kit.js";
import { readLocalFile } from "../common/local-files.js";
import { isOwnedBy } from "../common/ownership.js";
import { findFirst } from "../common/paging.js";
import type { HttpClient, HttpRequest } from "../http.js";
import { ProviderHttpError } from "../http.js";
import type { HandlerContext, Owner, RemoteObject } from "../types.js";
import { UnforeseeableError } from "../unforeseeable.js";
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
