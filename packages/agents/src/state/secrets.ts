// Secret fields never reach the state file, not even as a plain hash (a plain SHA-256 of a short
// token is brute-forceable offline). They are stored as HMAC-SHA256 under a key that lives
// outside the state file: AGENTS_STATE_KEY, or ~/.config/agents/state-key (created 0600).
import { createHmac, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { mapSensitive } from "../model/field-path.js";

const KEYED_HASH_PREFIX = "hmac-sha256:";

function stateKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const configHome = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(configHome, "agents", "state-key");
}

/** Loads the state key, creating a random one (0600) on first use. */
export function loadStateKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.AGENTS_STATE_KEY) return Buffer.from(env.AGENTS_STATE_KEY, "utf8");
  const path = stateKeyPath(env);
  try {
    return Buffer.from(readFileSync(path, "utf8").trim(), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString("hex");
  try {
    writeFileSync(path, `${key}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return Buffer.from(readFileSync(path, "utf8").trim(), "utf8");
  }
  chmodSync(path, 0o600);
  return Buffer.from(key, "utf8");
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
