// Channel credentials: the first key of each type is public (the provider reads it back and
// refuses a second channel with the same one); the rest are secrets the simulator keeps only as
// sha256, so neither a read nor `/_sim/state` can show them (docs/sims.md).
import { isObject, sha256 } from "../kit/records.js";
import type { Rec } from "../kit/store.js";

/** Credential-based channel types and their keys; the first key is public, the second secret. */
export const CHANNEL_KEYS: Record<string, [string, string] | null> = {
  dingtalk: ["client_id", "client_secret"],
  feishu: ["app_id", "app_secret"],
  wecom: ["bot_id", "secret"],
  wechat: null,
};

/**
 * Splits given credentials into what is stored readable (the public key) and the sha256 of every
 * other value, by key.
 */
export function storedCredentials(
  type: string,
  credentials: Record<string, unknown>,
): { credentials: Record<string, unknown>; secretsSha256: Record<string, string> } {
  const publicKey = CHANNEL_KEYS[type]?.[0];
  const kept: Record<string, unknown> = {};
  const secretsSha256: Record<string, string> = {};
  for (const [key, value] of Object.entries(credentials)) {
    if (key === publicKey) kept[key] = value;
    else secretsSha256[key] = sha256(typeof value === "string" ? value : JSON.stringify(value));
  }
  return { credentials: kept, secretsSha256 };
}

/** A seeded channel may carry plain credentials (as a client sends them): they are hashed the same way. */
export function seededChannel(rec: Rec): Rec {
  const cfg = rec.channel_config;
  if (!isObject(cfg) || !isObject(cfg.credentials)) return rec;
  const { credentials, secretsSha256 } = storedCredentials(String(rec.channel_type), cfg.credentials);
  return {
    ...rec,
    channel_config: { ...cfg, credentials },
    _secrets_sha256: { ...(rec._secrets_sha256 as object | undefined), ...secretsSha256 },
  };
}
