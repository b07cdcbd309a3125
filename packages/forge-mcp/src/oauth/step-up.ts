import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Request, RequestHandler } from "express";
import type { Logger } from "pino";
import { bearerChallenge, WRITE_SCOPE } from "./scopes.js";

/**
 * Step-up authorization per tool (FORGE_MCP_STEP_UP, docs/forge-mcp-oauth.md §12): a `tools/call`
 * of a writing tool made with a token that lacks the write scope answers HTTP 403
 * `insufficient_scope` naming that scope (MCP 2025-11-25, "Runtime insufficient scope errors"), so
 * the client re-authorizes for it and retries; no forge call is made. Runs after the bearer check
 * (req.auth) and the JSON body parser, before the MCP transport. A batch counts as one request.
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
    res.setHeader(
      "WWW-Authenticate",
      bearerChallenge({
        error: "insufficient_scope",
        description: "The tool needs more access",
        scope: [WRITE_SCOPE],
        resourceMetadataUrl: o.resourceMetadataUrl,
      }),
    );
    res.status(403).json({ error: "insufficient_scope", error_description: "The tool needs more access" });
  };
}

/** The writing tool a body calls with a token that lacks the write scope, or undefined. */
export function stepUpNeeded(
  auth: AuthInfo | undefined,
  body: unknown,
  writingTools: Set<string>,
): string | undefined {
  if (!auth || auth.scopes.includes(WRITE_SCOPE)) return undefined;
  return toolCalled(body, writingTools);
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
