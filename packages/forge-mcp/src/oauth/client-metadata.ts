import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import { OAuthError } from "./errors.js";
import { redirectUriProblem } from "./redirect-uris.js";
import type { ClientRecord } from "./stores.js";
import { FixedWindows } from "./windows.js";

/**
 * Client ID Metadata Documents (MCP authorization 2025-11-25; draft-ietf-oauth-client-id-metadata-document):
 * a client_id that is an https URL names a JSON document of the client's metadata, which we fetch.
 * That fetch is a server-side request to an address the caller chooses, so it is fenced in:
 * - https only, to a host whose every resolved address is public: the check runs in the socket's
 *   own DNS lookup (and again on the address the socket connected to), so a name that resolves to
 *   a public address for a check and a private one for the connection cannot get through;
 * - no redirects (a 3xx is a refusal), at most MAX_DOCUMENT_BYTES, at most FETCH_TIMEOUT_MS in all;
 * - cached by its Cache-Control max-age, clamped to [CACHE_MIN_MS, CACHE_MAX_MS], in a bounded LRU;
 * - a per-address budget of fetches (cache misses) per minute.
 * A document that fails any rule makes the client unknown: invalid_client, details in the log.
 */

/** The draft's suggested cap on a document's size. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 3000;
export const CACHE_MIN_MS = 60_000;
export const CACHE_MAX_MS = 24 * 3600_000;
const CACHE_ENTRIES = 1000;
const MINUTE_MS = 60_000;

/** A client record from a metadata document: the URL's host is shown on the consent page with the name. */
export interface MetadataClientRecord extends ClientRecord {
  metadata_host: string;
}

export interface ClientMetadataOptions {
  allowlist: RegExp[];
  /** Fetches (cache misses) one client address may cause per minute. */
  fetchesPerMinute: number;
  /** TEST ONLY (FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS): loopback addresses become fetchable. */
  allowLoopbackForTests?: boolean;
  /** TEST ONLY: extra trusted CA certificates (PEM) for the document's https server. */
  testCa?: string;
  timeoutMs?: number;
  logger: Logger;
  now: () => number;
}

/** Addresses never fetched: private, loopback, link-local, unique-local, CGNAT, multicast, reserved. */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 96], // unspecified and IPv4-compatible
  ["64:ff9b::", 96], // NAT64: an IPv4 address of any kind behind a translator
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23], // Teredo, benchmarking and other IETF protocol assignments
  ["2001:db8::", 32],
  ["2002::", 16], // 6to4: an embedded IPv4 address
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv6");
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Why an address may not be fetched, or undefined when it may. IPv4-mapped IPv6 is judged as its IPv4. */
export function addressProblem(address: string, allowLoopback: boolean): string | undefined {
  let a = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  else if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(a)) {
    const [hi, lo] = a
      .slice(7)
      .split(":")
      .map((h) => Number.parseInt(h, 16)) as [number, number];
    a = [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  }
  const family = isIP(a);
  if (family === 0) return "not an IP address";
  const type = family === 4 ? "ipv4" : "ipv6";
  if (LOOPBACK.check(a, type)) return allowLoopback ? undefined : "a loopback address";
  if (FORBIDDEN.check(a, type)) return "a private, link-local or reserved address";
  return undefined;
}

/** The draft's rules on the URL itself; undefined when it may be a client id. */
export function metadataUrlProblem(id: string): string | undefined {
  if (id.length > 2000 || !URL.canParse(id)) return "not a URL";
  const u = new URL(id);
  if (u.protocol !== "https:") return "not https";
  if (u.href !== id) return "not in its canonical form";
  if (u.username || u.password) return "carries userinfo";
  if (u.hash || id.includes("#")) return "has a fragment";
  if (u.search) return "has a query";
  if (u.pathname === "/") return "has no path";
  if (/\/\.\.?(\/|$)|%2e/i.test(u.pathname)) return "has dot segments";
  return undefined;
}

/** A client id that is a URL names a metadata document (the URL rules then refuse all but https). */
export const isMetadataClientId = (id: string): boolean => /^https?:\/\//i.test(id);

class Refusal extends Error {}

export class ClientMetadataResolver {
  private readonly cache = new LRUCache<string, { record: MetadataClientRecord; until: number }>({
    max: CACHE_ENTRIES,
  });
  private readonly inflight = new Map<string, Promise<MetadataClientRecord>>();
  private readonly windows = new FixedWindows(MINUTE_MS);
  /** Fetches started, for tests and the log. */
  fetches = 0;

  constructor(private readonly o: ClientMetadataOptions) {}

  /** The client behind a metadata-document client id; throws invalid_client or too_many_requests. */
  async resolve(clientId: string, source: string): Promise<MetadataClientRecord> {
    const problem = metadataUrlProblem(clientId);
    if (problem) throw new OAuthError("invalid_client", `client metadata URL refused: ${problem}`);
    const hit = this.cache.get(clientId);
    if (hit && hit.until > this.o.now()) return hit.record;
    const running = this.inflight.get(clientId);
    if (running) return running;
    this.charge(source);
    const p = this.fetchAndValidate(clientId).finally(() => this.inflight.delete(clientId));
    this.inflight.set(clientId, p);
    return p;
  }

  private charge(source: string): void {
    const t = this.o.now();
    const w = this.windows.hit(source, t);
    if (w.count > this.o.fetchesPerMinute) {
      const err = new OAuthError("too_many_requests", `client metadata fetch budget spent for ${source}`);
      throw Object.assign(err, { retryAfterSeconds: Math.ceil((w.start + MINUTE_MS - t) / 1000) });
    }
  }

  private async fetchAndValidate(url: string): Promise<MetadataClientRecord> {
    this.fetches += 1;
    let got: { body: unknown; maxAgeMs: number };
    try {
      got = await this.fetchDocument(url);
    } catch (err) {
      throw new OAuthError("invalid_client", `client metadata fetch failed: ${(err as Error).message}`);
    }
    const problem = documentProblem(got.body, url, this.o.allowlist);
    if (typeof problem === "string")
      throw new OAuthError("invalid_client", `client metadata document refused: ${problem}`);
    const record: MetadataClientRecord = { ...problem, metadata_host: new URL(url).host };
    const ttl = Math.min(CACHE_MAX_MS, Math.max(CACHE_MIN_MS, got.maxAgeMs));
    this.cache.set(url, { record, until: this.o.now() + ttl });
    this.o.logger.info(
      { host: record.metadata_host, clientName: record.client_name },
      "client metadata fetched",
    );
    return record;
  }

  private fetchDocument(url: string): Promise<{ body: unknown; maxAgeMs: number }> {
    const allowLoopback = this.o.allowLoopbackForTests === true;
    const u = new URL(url);
    const literal = u.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal)) {
      // an address literal is connected to without a lookup: judge it here
      const bad = addressProblem(literal, allowLoopback);
      if (bad) return Promise.reject(new Refusal(`host is ${bad}`));
    }
    // Every address a name resolves to must be public, and the socket connects only to those.
    const lookup: LookupFunction = (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        const cb = callback as unknown as (e: Error | null, a: string | LookupAddress[], f?: number) => void;
        if (err) return cb(err, []);
        const list = addresses as LookupAddress[];
        const bad = list.find((a) => addressProblem(a.address, allowLoopback) !== undefined);
        if (bad || list.length === 0)
          return cb(new Refusal(`${hostname} resolves to a forbidden address`), []);
        if ((options as { all?: boolean }).all) return cb(null, list);
        cb(null, list[0]!.address, list[0]!.family);
      });
    };
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | undefined, value?: { body: unknown; maxAgeMs: number }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        if (err) reject(err);
        else resolve(value!);
      };
      const req = request(
        u,
        {
          method: "GET",
          headers: { accept: "application/json" },
          lookup,
          agent: false,
          ...(this.o.testCa ? { ca: this.o.testCa } : {}),
        },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status !== 200) return finish(new Refusal(`HTTP ${status} (redirects are not followed)`));
          const type = String(res.headers["content-type"] ?? "")
            .split(";")[0]!
            .trim()
            .toLowerCase();
          if (!/^application\/([a-z0-9.+-]+\+)?json$/.test(type))
            return finish(new Refusal(`content-type ${type || "missing"}`));
          if (Number(res.headers["content-length"] ?? 0) > MAX_DOCUMENT_BYTES)
            return finish(new Refusal("larger than the size cap"));
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > MAX_DOCUMENT_BYTES) return finish(new Refusal("larger than the size cap"));
            chunks.push(c);
          });
          res.on("error", (e) => finish(e));
          res.on("end", () => {
            let body: unknown;
            try {
              body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              return finish(new Refusal("not JSON"));
            }
            finish(undefined, { body, maxAgeMs: maxAgeMs(res.headers["cache-control"]) });
          });
        },
      );
      // belt and braces: the address actually connected to is judged again
      req.on("socket", (socket) => {
        socket.once("connect", () => {
          const bad = socket.remoteAddress && addressProblem(socket.remoteAddress, allowLoopback);
          if (bad) finish(new Refusal(`connected to ${bad}`));
        });
      });
      req.on("error", (e) => finish(e));
      const timer = setTimeout(() => finish(new Refusal("timed out")), this.o.timeoutMs ?? FETCH_TIMEOUT_MS);
      req.end();
    });
  }
}

/** max-age (or s-maxage) in ms; 0 when absent or when the document asks not to be stored. */
function maxAgeMs(header: string | undefined): number {
  if (!header) return 0;
  const h = header.toLowerCase();
  if (/\bno-store\b|\bno-cache\b/.test(h)) return 0;
  const m = /\b(?:s-maxage|max-age)\s*=\s*"?(\d+)/.exec(h);
  return m ? Number(m[1]) * 1000 : 0;
}

/** The document's rules; the client record when it passes, the reason as a string when not. */
function documentProblem(doc: unknown, url: string, allowlist: RegExp[]): ClientRecord | string {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return "not a JSON object";
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) return "client_id differs from the document's URL";
  if ("client_secret" in d || "client_secret_expires_at" in d) return "carries a client secret";
  if (d.token_endpoint_auth_method !== undefined && d.token_endpoint_auth_method !== "none")
    return "token_endpoint_auth_method is not none";
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10)
    return "redirect_uris must hold 1..10 URLs";
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, allowlist);
    if (problem) return `redirect_uri rejected: ${problem}`;
  }
  const name = typeof d.client_name === "string" ? d.client_name.slice(0, 200) : undefined;
  return { redirect_uris: uris as string[], client_id_issued_at: 0, ...(name ? { client_name: name } : {}) };
}
