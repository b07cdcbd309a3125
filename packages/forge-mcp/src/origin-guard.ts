import type { IncomingHttpHeaders } from "node:http";
import type { RequestHandler } from "express";

/**
 * DNS-rebinding protection for /mcp, as the MCP Streamable HTTP transport requires: a web page
 * whose name an attacker re-points at 127.0.0.1 reaches the server with its own Host and Origin,
 * so both are checked against allow-lists. Requests without an Origin (every non-browser client)
 * pass the Origin check; the Host check applies to all.
 *
 * Defaults: hosts are the loopback names plus MCP_SERVER_URL's host. Origins are the loopback
 * origins (any port) plus MCP_SERVER_URL's origin; with forge OAuth on, any origin, since a
 * request then needs a forge token that a rebinding page cannot have.
 */

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

export interface OriginGuardOptions {
  mcpServerUrl: string;
  remoteOAuth: boolean;
  /** MCP_ALLOWED_HOSTS: extra hostnames (no port), or ["*"] for any. */
  allowedHosts: string[];
  /** MCP_ALLOWED_ORIGINS: extra origins (scheme://host[:port]), or ["*"] for any. */
  allowedOrigins: string[];
}

/** The guard's verdict on a request's headers: what is wrong with them, or undefined. */
export function originCheck(o: OriginGuardOptions): (headers: IncomingHttpHeaders) => string | undefined {
  const server = new URL(o.mcpServerUrl);
  const anyHost = o.allowedHosts.includes("*");
  const hosts = new Set([...LOOPBACK_HOSTS, server.hostname, ...o.allowedHosts.map((h) => h.toLowerCase())]);
  const anyOrigin = o.allowedOrigins.includes("*") || (o.remoteOAuth && o.allowedOrigins.length === 0);
  const origins = new Set([server.origin, ...o.allowedOrigins]);
  const originAllowed = (origin: string): boolean => {
    if (anyOrigin || origins.has(origin)) return true;
    if (!URL.canParse(origin)) return false;
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && LOOPBACK_HOSTS.includes(u.hostname);
  };
  // a server sees few Host values: each one's verdict is kept (bounded), not parsed per request
  const hostVerdicts = new Map<string, boolean>();
  const hostAllowed = (host: string | undefined): boolean => {
    if (host === undefined) return false;
    let allowed = hostVerdicts.get(host);
    if (allowed === undefined) {
      const hostname = URL.canParse(`http://${host}`) ? new URL(`http://${host}`).hostname : undefined;
      allowed = hostname !== undefined && hostname !== "" && hosts.has(hostname);
      if (hostVerdicts.size >= 1000) hostVerdicts.clear();
      hostVerdicts.set(host, allowed);
    }
    return allowed;
  };
  return (headers) => {
    const origin = headers.origin;
    return !anyHost && !hostAllowed(headers.host)
      ? "Host header is not allowed"
      : origin !== undefined && !originAllowed(origin)
        ? "Origin is not allowed"
        : undefined;
  };
}

/** The guard as /mcp's Express middleware: 403 with a JSON-RPC error when the check finds a problem. */
export function originGuard(o: OriginGuardOptions): RequestHandler {
  const check = originCheck(o);
  return (req, res, next) => {
    const problem = check(req.headers);
    if (!problem) return next();
    res
      .status(403)
      .json({ jsonrpc: "2.0", error: { code: -32000, message: `Forbidden: ${problem}` }, id: null });
  };
}
