import { invalid } from "./errors.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type Metadata = Record<string, string>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function requireObject(v: unknown, where: string): JsonObject {
  if (!isObject(v)) throw invalid(`${where}: expected a JSON object`);
  return v;
}

/** The request body as an object; `express.json()` leaves `undefined` when no JSON was sent. */
export function body(v: unknown): JsonObject {
  if (v === undefined) return {};
  return requireObject(v, "body");
}

/** Unknown fields are rejected, as the provider's schema validation does, so typos surface early. */
export function allowOnly(o: JsonObject, keys: readonly string[], where = "body"): void {
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) throw invalid(`${where}.${k}: Extra inputs are not permitted`);
  }
}

export function reqString(o: JsonObject, key: string, opts: { min?: number; max?: number } = {}): string {
  const v = o[key];
  if (v === undefined || v === null) throw invalid(`${key}: Field required`);
  return checkString(v, key, opts);
}

export function optString(
  o: JsonObject,
  key: string,
  opts: { min?: number; max?: number } = {},
): string | null | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (v === null) return null;
  return checkString(v, key, opts);
}

export function checkString(v: unknown, where: string, opts: { min?: number; max?: number } = {}): string {
  if (typeof v !== "string") throw invalid(`${where}: expected a string`);
  const min = opts.min ?? 0;
  if (v.length < min) throw invalid(`${where}: must be at least ${min} character(s)`);
  if (opts.max !== undefined && v.length > opts.max) {
    throw invalid(`${where}: must be at most ${opts.max} characters`);
  }
  return v;
}

export function optBool(o: JsonObject, key: string, where = key): boolean | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") throw invalid(`${where}: expected a boolean`);
  return v;
}

export function stringArray(v: unknown, where: string, max?: number): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    throw invalid(`${where}: expected an array of strings`);
  }
  if (max !== undefined && v.length > max) throw invalid(`${where}: at most ${max} entries`);
  return v as string[];
}

const METADATA_MAX_PAIRS = 16;
const METADATA_MAX_KEY = 64;
const METADATA_MAX_VALUE = 512;

function checkMetadata(m: Metadata): Metadata {
  if (Object.keys(m).length > METADATA_MAX_PAIRS) {
    throw invalid(`metadata: at most ${METADATA_MAX_PAIRS} key-value pairs`);
  }
  for (const [k, v] of Object.entries(m)) {
    if (k.length === 0 || k.length > METADATA_MAX_KEY) {
      throw invalid(`metadata: key ${JSON.stringify(k)} must be 1-${METADATA_MAX_KEY} characters`);
    }
    if (v.length > METADATA_MAX_VALUE) {
      throw invalid(`metadata.${k}: value must be at most ${METADATA_MAX_VALUE} characters`);
    }
  }
  return m;
}

/** Metadata on create: string → string, provider limits enforced. */
export function createMetadata(v: unknown): Metadata {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw invalid("metadata: expected an object of string values");
  const out: Metadata = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== "string") throw invalid(`metadata.${k}: expected a string`);
    out[k] = val;
  }
  return checkMetadata(out);
}

/**
 * Metadata on update. "patch": string values upsert, `null` deletes, absent keys stay (provider_c).
 * "replace": the sent object becomes the metadata (provider_d).
 */
export function updateMetadata(current: Metadata, v: unknown, mode: "patch" | "replace"): Metadata {
  if (v === undefined) return current;
  if (mode === "replace") return createMetadata(v);
  if (v === null) return {};
  if (!isObject(v)) throw invalid("metadata: expected an object of string or null values");
  const out: Metadata = { ...current };
  for (const [k, val] of Object.entries(v)) {
    if (val === null) delete out[k];
    else if (typeof val === "string") out[k] = val;
    else throw invalid(`metadata.${k}: expected a string or null`);
  }
  return checkMetadata(out);
}

/** Arrays of ids referenced from a body must each name an existing object. */
export function idArray(v: unknown, where: string, exists: (id: string) => boolean, kind: string): string[] {
  if (v === undefined || v === null) return [];
  const ids = stringArray(v, where);
  for (const id of ids) if (!exists(id)) throw invalid(`${where}: ${kind} ${JSON.stringify(id)} not found`);
  return ids;
}
