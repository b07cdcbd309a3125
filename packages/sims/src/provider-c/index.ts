import { randomBytes } from "node:crypto";
import type { Request } from "express";
import type { RateLimitHeaders } from "../core/rate-limit.js";
import type { SimDefinition } from "../core/sim.js";
import { ApiError, typeForStatus } from "../managed/errors.js";
import { mountApi } from "../managed/http.js";
import { makeKit } from "../managed/kit.js";
import { dialectRoutes } from "../managed/routes.js";
import { sessionRoutes } from "../managed/sessions.js";
import { dumpState, seedState } from "../managed/snapshot.js";
import { createState, type Dialect, type State } from "../managed/state.js";
import { deploymentRoutes } from "./deployments.js";
import { modelRoutes } from "./models.js";
import { skillRoutes } from "./skills.js";

/** The well-known test key every provider_c simulator accepts (more can be seeded as `api_keys`). */
export const DEFAULT_KEY = "sim-provider-c-key";
/**
 * Versions the simulator takes: `2023-06-01` (docs/wire/provider-c.md §1, what the reference tool sends)
 * and `2026-10-21`, the value the official SDK 1.12.0 sends on every request (`client.js` buildHeaders).
 * The SDK wins where the two disagree.
 */
const API_VERSION = "2023-06-01";
const API_VERSIONS: readonly string[] = [API_VERSION, "2026-10-21"];
const BETA = {
  managedAgents: "managed-agents-2026-04-01",
  memory: "agent-memory-2026-07-22",
  skills: "skills-2025-10-02",
  files: "files-api-2025-04-14",
} as const;

export const dialect: Dialect = {
  name: "provider_c",
  idPrefix: {
    environment: "env_",
    vault: "vlt_",
    credential: "vcrd_",
    file: "file_",
    skill: "skill_",
    agent: "agent_",
    memory_store: "memstore_",
    memory: "mem_",
    memory_version: "memver_",
    deployment: "depl_",
    deployment_run: "drun_",
    session: "sesn_",
    session_resource: "sesrsc_",
    session_thread: "sthr_",
    event: "sevt_",
  },
  toolsetType: "agent_toolset_20260401",
  metadataUpdate: "patch",
  limits: { defaultLimit: 20, maxLimit: 100 },
  modelObjectOnly: false,
  rosterObjectsOnly: false,
  credentialTypes: ["static_bearer", "environment_variable", "mcp_oauth"],
  archivable: new Set([
    "agent",
    "environment",
    "session",
    "session_thread",
    "vault",
    "credential",
    "memory_store",
    "deployment",
  ]),
  agentDelete: false,
  memoryVersions: true,
  resourceTypes: ["file", "github_repository", "memory_store"],
  mountRoot: "/workspace",
};

function betaFor(path: string): readonly string[] | null {
  const top = path.split("/")[1] ?? "";
  // The SDK sends no beta header for skills, files and models unless the caller asks for one, so
  // those endpoints take requests with or without one (any values).
  if (top === "models" || top === "skills" || top === "files") return null;
  if (top === "memory_stores") return [BETA.memory, BETA.managedAgents];
  return [BETA.managedAgents];
}

/**
 * The caller's key: `x-api-key` (docs/wire/provider-c.md §1, the reference tool) or `Authorization: Bearer
 * <key>` (what the official SDK 1.12.0 sends for an `apiKey`). When both are present both must be valid
 * keys.
 */
function presentedKeys(req: Request): string[] {
  const keys: string[] = [];
  const apiKey = req.headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey !== "") keys.push(apiKey);
  const authorization = req.headers.authorization;
  if (typeof authorization === "string" && authorization !== "") {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) {
      throw new ApiError(401, "authentication_error", "Authorization header must be 'Bearer <api key>'");
    }
    keys.push(match[1]);
  }
  return keys;
}

/** The key (x-api-key or Bearer), then `anthropic-version`, then the beta header the route family needs. */
function authenticate(req: Request, keys: Set<string>): void {
  const presented = presentedKeys(req);
  if (presented.length === 0) {
    throw new ApiError(401, "authentication_error", "x-api-key or Authorization: Bearer header is required");
  }
  if (!presented.every((k) => keys.has(k)))
    throw new ApiError(401, "authentication_error", "invalid x-api-key");
  const version = req.headers["anthropic-version"];
  if (version === undefined)
    throw new ApiError(400, "invalid_request_error", "anthropic-version: header is required");
  if (typeof version !== "string" || !API_VERSIONS.includes(version)) {
    throw new ApiError(
      400,
      "invalid_request_error",
      `anthropic-version: ${JSON.stringify(version)} is not a valid version`,
    );
  }
  const needed = betaFor(req.path);
  if (!needed) return;
  const sent = String(req.headers["anthropic-beta"] ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);
  // Observed on the live API (REF): memory endpoints reject the memory beta combined with managed-agents.
  if (needed[0] === BETA.memory && sent.includes(BETA.memory) && sent.includes(BETA.managedAgents)) {
    throw new ApiError(
      400,
      "invalid_request_error",
      `anthropic-beta: ${BETA.memory} cannot be combined with ${BETA.managedAgents}; send only ${BETA.memory}`,
    );
  }
  if (!needed.some((b) => sent.includes(b))) {
    throw new ApiError(
      400,
      "invalid_request_error",
      `anthropic-beta: this endpoint requires the beta header ${needed.join(" or ")}`,
    );
  }
}

/** Opaque request ids, random: no counter outlives `/_sim/reset` or leaks between sims in one process. */
const nextRequestId = () => `req_sim${randomBytes(6).toString("hex")}`;

/** The error body; `request_id` repeats the response's `request-id` header when there is one. */
export function renderError(err: ApiError, req?: Request): unknown {
  const fromHeader = req?.res?.getHeader("request-id");
  return {
    type: "error",
    error: { type: err.type, message: err.message, ...err.extra },
    request_id: typeof fromHeader === "string" ? fromHeader : nextRequestId(),
  };
}

/**
 * provider_c's request-limit headers, on every answer: the limit in requests per minute, what is
 * left, and when the bucket is full again (RFC 3339, to the millisecond); a 429 adds `retry-after`
 * in whole seconds.
 */
const anthropicRateHeaders: RateLimitHeaders = (r, limited) => ({
  "anthropic-ratelimit-requests-limit": String(Math.round((r.limit * 60) / r.periodSeconds)),
  "anthropic-ratelimit-requests-remaining": String(r.remaining),
  "anthropic-ratelimit-requests-reset": new Date(r.resetAtMs).toISOString(),
  ...(limited ? { "retry-after": String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) } : {}),
});

export const definition: SimDefinition<State> = {
  name: "provider_c",
  basePath: "/v1",
  createState: () => createState(DEFAULT_KEY),
  routes(app, ctx) {
    const kit = makeKit(dialect, ctx);
    mountApi(app, {
      basePath: "/v1",
      onRequest: (_req, res) => {
        res.setHeader("request-id", nextRequestId());
      },
      authenticate: (req) => authenticate(req, ctx.state.apiKeys),
      render: renderError,
      routes(router) {
        dialectRoutes(router, kit, skillRoutes);
        deploymentRoutes(router, kit);
        sessionRoutes(router, kit);
        modelRoutes(router, kit);
      },
    });
  },
  errorBody: (status, message) => renderError(new ApiError(status, typeForStatus(status), message)),
  rateLimitHeaders: anthropicRateHeaders,
  seed: (ctx, body) => ({ seeded: seedState(ctx.state, body) }),
  dump: (ctx) => dumpState(ctx.state),
};
