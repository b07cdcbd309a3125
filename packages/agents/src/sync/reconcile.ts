// What must change in one YAML declaration so that it says what the remote holds. Only places
// whose comparable values differ are edited, as deep as the file's own structure allows, so
// untouched lines keep their comments, quoting and `${VAR}` references. Secrets are never read
// from the remote (providers do not return them): an existing `${VAR}` is kept, and a secret
// the file has no place for yet becomes a new `${VAR}` placeholder the user must set.
import { isPlainObject, mapSensitive, matchesAny, type PathSegment } from "../model/field-path.js";
import { isEmptyValue, sameValue } from "../plan/diff.js";
import type { Spec } from "../providers/types.js";

export type EditPath = PathSegment[];

export type Edit =
  | { path: EditPath; op: "set"; value: unknown }
  | { path: EditPath; op: "delete" }
  /** Adds `value` at the end of the sequence at `path`. */
  | { path: EditPath; op: "append"; value: unknown };

export interface ReconcileInput {
  /** YAML path of the declaration, e.g. ["agents", "writer"]. */
  at: EditPath;
  /** The declaration in the handler's comparable form (secrets resolved), or undefined when new. */
  declared: Spec | undefined;
  /** The remote object's spec, references already mapped back to logical names. */
  remote: Spec;
  /** The declaration as written in the file (no interpolation), undefined when new. */
  raw: Record<string, unknown> | undefined;
  sensitive: readonly string[];
  provider: string;
}

interface ReconcileResult {
  edits: Edit[];
  /** `${VAR}` placeholders written for secrets the file did not hold yet. */
  variables: string[];
}

/**
 * Which secret field a credential of the common schema needs, by its `type` (CredentialDecl,
 * docs/configuration.md#vaultsname). Only fields the handler also marks sensitive are ever filled in.
 */
const REQUIRED_SECRET_BY_TYPE: Record<string, string> = {
  static_bearer: "access_token",
  environment_variable: "secret_value",
};

export function reconcile(input: ReconcileInput): ReconcileResult {
  const result: ReconcileResult = { edits: [], variables: [] };
  const remote = withoutOwnershipMetadata(input.remote);
  if (!input.raw || !input.declared) {
    const value = withSecrets(withoutEmpty(remote), undefined, [], input, result);
    result.edits.push({ path: input.at, op: "set", value: { provider: input.provider, ...(value as Spec) } });
    return result;
  }
  for (const key of Object.keys(remote)) {
    if (key === "provider") continue;
    walk([key], input.declared[key], remote[key], input.raw[key], input, result);
  }
  return result;
}

function walk(
  path: EditPath,
  declared: unknown,
  remote: unknown,
  raw: unknown,
  input: ReconcileInput,
  out: ReconcileResult,
): void {
  if (matchesAny(input.sensitive, path)) return;
  // Inside an object the remote shows, an absent key is what a canonical form leaves out (a
  // default, e.g. injection_location {header: true, body: false}): the file's explicit value is
  // kept (spec: explicit host lists and booleans are preserved through sync). An explicit
  // null or empty value does clear it.
  if (remote === undefined && path.length > 1) return;
  const hide = (v: unknown) => mapSensitive(v, input.sensitive, () => undefined, path);
  if (sameValue(hide(declared), hide(remote))) return;
  const at = [...input.at, ...path];
  if (isEmptyValue(remote)) {
    if (raw !== undefined) out.edits.push({ path: at, op: "delete" });
    return;
  }
  if (isPlainObject(remote) && isPlainObject(raw)) {
    const base = isPlainObject(declared) ? declared : {};
    for (const key of new Set([...Object.keys(base), ...Object.keys(remote)]))
      walk([...path, key], base[key], remote[key], raw[key], input, out);
    return;
  }
  // A per-provider map (e.g. `model: {provider_c: ..., provider_d: ...}`) keeps its other entries.
  if (!isPlainObject(remote) && !Array.isArray(remote) && isPlainObject(raw) && input.provider in raw) {
    out.edits.push({ path: [...at, input.provider], op: "set", value: remote });
    return;
  }
  if (
    Array.isArray(remote) &&
    Array.isArray(raw) &&
    Array.isArray(declared) &&
    declared.length === raw.length
  ) {
    if (walkListItems(path, declared, remote, raw, input, out)) return;
  }
  if (
    Array.isArray(remote) &&
    Array.isArray(raw) &&
    Array.isArray(declared) &&
    remote.length === raw.length &&
    declared.length === raw.length
  ) {
    remote.forEach((item, i) => {
      walk([...path, i], declared[i], item, raw[i], input, out);
    });
    return;
  }
  out.edits.push({ path: at, op: "set", value: withSecrets(remote, raw, path, input, out) });
}

/** What identifies a list item across the file and the remote: its value, name or agent id. */
function itemKey(item: unknown): string | undefined {
  if (item === null || typeof item !== "object") return `value:${JSON.stringify(item)}`;
  if (isPlainObject(item) && typeof item.name === "string") return `name:${item.name}`;
  if (isPlainObject(item) && typeof item.agent_id === "string") return `agent:${item.agent_id}`;
  return undefined;
}

/**
 * Lists whose items can be told apart (credentials and servers by name, roster members and
 * plain values by value) are edited item by item: an item added remotely is appended and one
 * removed is deleted, so the other items keep their lines and comments. False when the items
 * are not uniquely identifiable or were reordered (the caller then replaces the list).
 */
function walkListItems(
  path: EditPath,
  declared: unknown[],
  remote: unknown[],
  raw: unknown[],
  input: ReconcileInput,
  out: ReconcileResult,
): boolean {
  const fileKeys = declared.map(itemKey);
  const remoteKeys = remote.map(itemKey);
  const unique = (keys: (string | undefined)[]) =>
    keys.every((k) => k !== undefined) && new Set(keys).size === keys.length;
  if (!unique(fileKeys) || !unique(remoteKeys)) return false;
  const kept = fileKeys.map((key) => remoteKeys.indexOf(key)).filter((j) => j >= 0);
  const lastKept = kept.length > 0 ? Math.max(...kept) : -1;
  const inOrder = kept.every((j, n) => n === 0 || j > kept[n - 1]!);
  const appendsOnly = remoteKeys.every((key, j) => fileKeys.includes(key) || j > lastKept);
  if (!inOrder || !appendsOnly) return false;
  const at = [...input.at, ...path];
  const removed: number[] = [];
  fileKeys.forEach((key, i) => {
    const j = remoteKeys.indexOf(key);
    if (j < 0) removed.push(i);
    else walk([...path, i], declared[i], remote[j], raw[i], input, out);
  });
  for (const i of removed.reverse()) out.edits.push({ path: [...at, i], op: "delete" });
  remote.forEach((item, j) => {
    if (fileKeys.includes(remoteKeys[j])) return;
    out.edits.push({ path: at, op: "append", value: withSecrets(item, undefined, [...path, j], input, out) });
  });
  return true;
}

/**
 * A remote value about to replace a part of the file, with its secret places filled from the
 * file as written (`${VAR}` kept), or with a new placeholder where the file had none.
 */
function withSecrets(
  value: unknown,
  raw: unknown,
  path: EditPath,
  input: ReconcileInput,
  out: ReconcileResult,
): unknown {
  if (Array.isArray(value)) {
    const rawItems = Array.isArray(raw) ? raw : [];
    return value.map((item, i) => {
      const name = isPlainObject(item) ? item.name : undefined;
      const previous =
        name !== undefined ? rawItems.find((r) => isPlainObject(r) && r.name === name) : rawItems[i];
      return withSecrets(item, previous, [...path, i], input, out);
    });
  }
  if (!isPlainObject(value)) return value;
  const result: Record<string, unknown> = {};
  const before = isPlainObject(raw) ? raw : {};
  for (const [key, child] of Object.entries(value))
    result[key] = withSecrets(child, before[key], [...path, key], input, out);
  const required = typeof value.type === "string" ? REQUIRED_SECRET_BY_TYPE[value.type] : undefined;
  for (const field of new Set([...Object.keys(before), ...(required ? [required] : [])])) {
    if (result[field] !== undefined || !matchesAny(input.sensitive, [...path, field])) continue;
    if (before[field] !== undefined) {
      result[field] = before[field];
    } else {
      const variable = placeholderName([...input.at, ...path, field], value);
      out.variables.push(variable);
      result[field] = `\${${variable}}`;
    }
  }
  return result;
}

/** `VAULTS_TOOLS_GITHUB_ACCESS_TOKEN`: kind, name, the item's own name where it has one, field. */
function placeholderName(path: EditPath, item: Record<string, unknown>): string {
  const parts = path.map((segment, i) =>
    typeof segment === "number" && i === path.length - 2 && typeof item.name === "string"
      ? item.name
      : String(segment),
  );
  return parts
    .join("_")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** A new declaration leaves out what the remote holds as empty (`tools: {builtin: []}`). */
function withoutEmpty(spec: Spec): Spec {
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => !isEmptyValue(v)));
}

function withoutOwnershipMetadata(spec: Spec): Spec {
  if (!isPlainObject(spec.metadata)) return spec;
  const metadata = Object.fromEntries(
    Object.entries(spec.metadata).filter(([k]) => !k.startsWith("agents.")),
  );
  return { ...spec, metadata };
}
