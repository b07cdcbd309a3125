import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Authenticated encryption of small JSON values into opaque URL-safe strings (stateless mode).
 * AES-256-GCM with one key per purpose, derived by HKDF-SHA256 from the shared secret, so a value
 * sealed as a `state` can never be opened as a `code` or a `client_id`. The purpose and an expiry
 * also travel inside the plaintext and are checked on open. Layout (base64url):
 *   version(1) | reserved(1) | iv(12) | ciphertext | tag(16)
 * The two header bytes and the purpose are authenticated as additional data.
 * Opening tries the current secret, then the previous one (rotation without a flag day).
 */

type SealPurpose = "client" | "state" | "code" | "consent" | "refresh" | "family" | "request-state";

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER = Buffer.from([VERSION, 0]);

const aad = (header: Buffer, purpose: SealPurpose) => Buffer.concat([header, Buffer.from(purpose)]);

interface Envelope<T> {
  p: SealPurpose;
  /** expiry, unix ms; 0 = no expiry */
  e: number;
  /** random id, used for one-time use bookkeeping */
  j: string;
  d: T;
}

interface Opened<T> {
  data: T;
  jti: string;
  expiresAt: number;
}

function deriveKey(secret: Buffer, purpose: SealPurpose): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "forge-mcp/seal/v1", `forge-mcp:${purpose}`, 32));
}

export class Sealer {
  private readonly keys: Array<Map<SealPurpose, Buffer>>;

  constructor(
    secret: Buffer,
    previous?: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    const purposes: SealPurpose[] = [
      "client",
      "state",
      "code",
      "consent",
      "refresh",
      "family",
      "request-state",
    ];
    this.keys = [secret, previous]
      .filter((s): s is Buffer => s !== undefined)
      .map((s) => new Map(purposes.map((p) => [p, deriveKey(s, p)])));
  }

  seal<T>(purpose: SealPurpose, data: T, ttlMs: number | undefined): string {
    const key = this.keys[0]!.get(purpose)!;
    const envelope: Envelope<T> = {
      p: purpose,
      e: ttlMs === undefined ? 0 : this.now() + ttlMs,
      j: randomBytes(12).toString("base64url"),
      d: data,
    };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(aad(HEADER, purpose));
    const body = Buffer.concat([cipher.update(JSON.stringify(envelope), "utf8"), cipher.final()]);
    return Buffer.concat([HEADER, iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  /** Returns undefined for anything not sealed by us for this purpose, tampered with, or expired. */
  open<T>(purpose: SealPurpose, token: string): Opened<T> | undefined {
    if (typeof token !== "string" || token.length > 16_384 || !/^[A-Za-z0-9_-]+$/.test(token))
      return undefined;
    const raw = Buffer.from(token, "base64url");
    if (raw.length < 2 + IV_BYTES + TAG_BYTES + 2 || raw[0] !== VERSION) return undefined;
    const iv = raw.subarray(2, 2 + IV_BYTES);
    const tag = raw.subarray(raw.length - TAG_BYTES);
    const body = raw.subarray(2 + IV_BYTES, raw.length - TAG_BYTES);
    for (const slot of this.keys) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", slot.get(purpose)!, iv);
        decipher.setAAD(aad(raw.subarray(0, 2), purpose));
        decipher.setAuthTag(tag);
        const plain = Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
        const env = JSON.parse(plain) as Envelope<T>;
        if (env.p !== purpose) return undefined;
        if (env.e !== 0 && env.e < this.now()) return undefined;
        return { data: env.d, jti: env.j, expiresAt: env.e };
      } catch {
        // wrong key slot or tampered: try the next secret
      }
    }
    return undefined;
  }
}

/**
 * The sealer of MCP 2026-07-28's requestState (src/mcp/rev2026.ts): the stateless secret where
 * there is one, so any replica opens what another sealed; a key of this process otherwise.
 */
export function requestStateSealer(
  secret: Buffer = randomBytes(32),
  previous?: Buffer,
  now: () => number = Date.now,
): { seal<T>(state: T, ttlMs: number): string; open<T>(token: string): T | undefined } {
  const sealer = new Sealer(secret, previous, now);
  return {
    seal: (state, ttlMs) => sealer.seal("request-state", state, ttlMs),
    open: <T>(token: string) => sealer.open<T>("request-state", token)?.data,
  };
}
