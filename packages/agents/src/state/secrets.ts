// Secret fields never reach the state, not even as a plain hash (a plain SHA-256 of a short token
// is a lookup away). They are stored as HMAC-SHA256 under the state's own random key
// (`hashKey`, made with the state): everyone who uses the state (teammates, CI runners) hashes a
// secret alike, so a secret changes in a plan only when its value changed.
//
// States older than v2 were keyed with a per-user key (AGENTS_STATE_KEY, else
// ~/.config/agents/state-key). Those keys are only read now, never created: a run re-keys each
// stored hash that one of them reproduces from the declared value, and records the state's key on
// its next write (see docs/state.md "Secrets").
import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isPlainObject, mapSensitive } from "../model/field-path.js";
import type { State } from "./types.js";

const KEYED_HASH_PREFIX = "hmac-sha256:";

function stateKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const configHome = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(configHome, "agents", "state-key");
}

/**
 * The per-user keys older versions keyed a state's hashes with: AGENTS_STATE_KEY when set, and
 * the key file when it exists (read only, never created).
 */
export function legacyStateKeys(env: NodeJS.ProcessEnv = process.env): Buffer[] {
  const keys: Buffer[] = [];
  if (env.AGENTS_STATE_KEY) keys.push(Buffer.from(env.AGENTS_STATE_KEY, "utf8"));
  try {
    keys.push(Buffer.from(readFileSync(stateKeyPath(env), "utf8").trim(), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return keys;
}

/**
 * The key of a state's keyed hashes. A state older than v2 has none until its next write: its key
 * is then derived from its lineage, so a plan saved before that write and the apply of it agree.
 */
export function stateHashKey(state: Pick<State, "hashKey" | "lineage">): Buffer {
  if (state.hashKey) return Buffer.from(state.hashKey, "hex");
  return createHash("sha256").update(`agents state hash key\u0000${state.lineage}`).digest();
}

export function keyedHash(key: Buffer, value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return KEYED_HASH_PREFIX + createHmac("sha256", key).update(text, "utf8").digest("hex");
}

function isKeyedHash(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(KEYED_HASH_PREFIX);
}

/** A copy of `spec` with every sensitive field replaced by its keyed hash. */
export function hashSecrets<T>(spec: T, sensitive: readonly string[] | undefined, key: Buffer): T {
  return mapSensitive(spec, sensitive, (secret) =>
    isKeyedHash(secret) ? secret : keyedHash(key, secret),
  ) as T;
}

/**
 * `stored` with each keyed hash that equals the one in `before` at the same place (the declared
 * value hashed under an old key) replaced by the one in `after` (the same value under the
 * state's key). A hash the old key does not reproduce (the secret changed) is left as it is.
 */
export function rekeyHashes(stored: unknown, before: unknown, after: unknown): unknown {
  if (isKeyedHash(stored)) return stored === before && typeof after === "string" ? after : stored;
  if (Array.isArray(stored))
    return stored.map((item, i) =>
      rekeyHashes(
        item,
        Array.isArray(before) ? before[i] : undefined,
        Array.isArray(after) ? after[i] : undefined,
      ),
    );
  if (isPlainObject(stored)) {
    const b = isPlainObject(before) ? before : {};
    const a = isPlainObject(after) ? after : {};
    return Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, rekeyHashes(v, b[k], a[k])]));
  }
  return stored;
}
