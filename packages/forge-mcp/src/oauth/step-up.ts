import type { ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Request, RequestHandler } from "express";
import type { Logger } from "pino";
import { type Caller, declaresFormElicitation } from "../mcp/catalogue.js";
import { CAPABILITIES_KEY, isModernVersion, type ScopeGate, VERSION_KEY } from "../mcp/rev2026.js";
import { bearerChallenge, WRITE_SCOPE } from "./scopes.js";

/**
 * Step-up authorization per tool (FORGE_MCP_STEP_UP, docs/forge-mcp-oauth.md §12): a `tools/call`
 * of a writing tool made with a token that lacks the write scope answers HTTP 403
 * `insufficient_scope` naming that scope (MCP 2025-11-25, "Runtime insufficient scope errors"), so
 * the client re-authorizes for it and retries; no forge call is made. Runs after the bearer check
 * (req.auth) and the JSON body parser, before the MCP transport. A batch counts as one request.
 *
 * A request of MCP 2026-07-28 whose client declared form elicitation goes on: the revision's own
 * layer asks first, in an `input_required` result (src/mcp/rev2026.ts, `modernStepUp` below), and
 * answers this same 403 once the person has agreed. Every other request is answered here.
 */
export function stepUpCheck(o: {
  /** Names of the served tools that write (define.ts `writes`). */
  writingTools: Set<string>;
  resourceMetadataUrl: string;
  logger: Logger;
}): RequestHandler {
  return (req, res, next) => {
    const tool = stepUpNeeded((req as Request & { auth?: AuthInfo }).auth, req.body, o.writingTools);
    if (tool === undefined) return next();
    o.logger.info({ tool }, "step-up: writing tool called with a read-only token");
    res.setHeader("WWW-Authenticate", challenge([WRITE_SCOPE], o.resourceMetadataUrl));
    res.status(403).json(INSUFFICIENT_SCOPE);
  };
}

const INSUFFICIENT_SCOPE = {
  error: "insufficient_scope",
  error_description: "The tool needs more access",
} as const;

const challenge = (scopes: readonly string[], resourceMetadataUrl: string) =>
  bearerChallenge({
    error: INSUFFICIENT_SCOPE.error,
    description: INSUFFICIENT_SCOPE.error_description,
    scope: [...scopes],
    resourceMetadataUrl,
  });

/**
 * Step-up for MCP 2026-07-28's own layer: which scope a caller lacks for a tool (the write scope,
 * for a writing tool), and the 403 that sends its client to step up.
 */
export function modernStepUp(o: {
  writingTools: Set<string>;
  resourceMetadataUrl: string;
  logger: Logger;
}): ScopeGate & { refuse(res: ServerResponse, scopes: readonly string[]): void } {
  return {
    missing: (caller: Caller | undefined, tool: string) =>
      caller && o.writingTools.has(tool) && !(caller.scopes ?? []).includes(WRITE_SCOPE)
        ? [WRITE_SCOPE]
        : undefined,
    // the same answer as stepUpCheck's (Express's res.json aside: this path has no Express)
    refuse: (res, scopes) => {
      if (res.headersSent || res.destroyed) return;
      o.logger.info("step-up: the person agreed to sign in again for a writing tool");
      const text = JSON.stringify(INSUFFICIENT_SCOPE);
      res.writeHead(403, {
        "www-authenticate": challenge(scopes, o.resourceMetadataUrl),
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
      });
      res.end(text);
    },
  };
}

/**
 * The writing tool a body calls with a token that lacks the write scope, or undefined: also
 * undefined for a 2026-07-28 request that can be asked in its result (`asksInResult`).
 */
export function stepUpNeeded(
  auth: AuthInfo | undefined,
  body: unknown,
  writingTools: Set<string>,
): string | undefined {
  if (!auth || auth.scopes.includes(WRITE_SCOPE) || asksInResult(body)) return undefined;
  return toolCalled(body, writingTools);
}

/**
 * Whether a body is one request that names MCP 2026-07-28 (or later) and a client that declared
 * form elicitation: its step-up is asked in the result by src/mcp/rev2026.ts, which also refuses
 * it where the token still lacks the scope. Headers and envelope are checked there, not here.
 */
function asksInResult(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return (
    typeof meta === "object" &&
    meta !== null &&
    isModernVersion(meta[VERSION_KEY]) &&
    declaresFormElicitation(meta[CAPABILITIES_KEY])
  );
}

/** The first of `names` a JSON-RPC message (or batch) calls with `tools/call`, if any. */
export function toolCalled(body: unknown, names: Set<string>): string | undefined {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (typeof m !== "object" || m === null) continue;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } };
    if (method === "tools/call" && typeof params?.name === "string" && names.has(params.name))
      return params.name;
  }
  return undefined;
}
