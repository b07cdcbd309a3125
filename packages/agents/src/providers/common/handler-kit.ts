// Small request helpers every provider_a / provider_b handler shares: read that answers "gone"
// on 404, removal where "already gone" is success, and multipart form building; and `str`, the
// one reading of a value as text, which every adapter uses.
import type { HttpClient, HttpRequest } from "../http.js";
import type { HandlerContext } from "../types.js";
import { isNotFound } from "./errors.js";

export type Wire = Record<string, unknown>;

export async function getOrGone(
  http: HttpClient,
  path: string,
  signal?: AbortSignal,
): Promise<Wire | "gone"> {
  const res = await http.request<Wire>({ method: "GET", path, allowStatus: [404], signal });
  if (res.status === 404 || !res.body || typeof res.body !== "object") return "gone";
  return res.body;
}

/**
 * The object refresh listed for this id (plan from lists, `pageListReader`), or, when the list did
 * not show it, a GET of it: what decides "gone".
 */
export async function listedOrGone(
  http: HttpClient,
  listed: unknown,
  path: string,
  signal?: AbortSignal,
): Promise<Wire | "gone"> {
  const value = await listed;
  if (value && typeof value === "object" && !Array.isArray(value)) return value as Wire;
  return getOrGone(http, path, signal);
}

/** DELETE or archive; a 404 means someone already removed it, which is what we wanted. */
export async function removeTolerant(
  http: HttpClient,
  method: "DELETE" | "POST",
  path: string,
  signal?: AbortSignal,
): Promise<void> {
  try {
    await http.request({
      method,
      path,
      allowStatus: [404],
      signal,
      ...(method === "POST" ? { json: {} } : {}),
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

export async function send<T = Wire>(
  ctx: Pick<HandlerContext, "signal">,
  http: HttpClient,
  req: Omit<HttpRequest, "signal">,
): Promise<T> {
  const res = await http.request<T>({ ...req, signal: ctx.signal });
  return res.body;
}

export function isArchived(remote: Wire): boolean {
  return (
    (typeof remote.archived_at === "string" && remote.archived_at !== "") || remote.status === "archived"
  );
}

export function multipartFile(
  field: string,
  bytes: Uint8Array,
  filename: string,
  mimeType: string,
  extra: Record<string, string> = {},
): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  form.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType }), filename);
  return form;
}

/**
 * A wire or spec value read as text. Numbers count: an id, a version or a port the provider (or
 * YAML) gives as a number means the same as its digits. Anything else is undefined.
 */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
}
