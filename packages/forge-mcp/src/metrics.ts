import { timingSafeEqual } from "node:crypto";
import express, { type Express, type RequestHandler } from "express";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/**
 * The operator's view (docs/forge-mcp.md, "Metrics and audit"): Prometheus metrics in a registry
 * of this server's own (never prom-client's global one, so two servers in one process do not mix).
 * Labels carry tool names, endpoints and outcomes only: never a token, user, project or argument.
 */

export class Metrics {
  readonly registry = new Registry();
  readonly toolCalls = this.counter(
    "forge_mcp_tool_calls_total",
    "Tool calls by tool and outcome (ok, error: the forge or the tool failed, refused: by a control)",
    ["tool", "outcome"] as const,
  );
  readonly forgeLatency = new Histogram({
    name: "forge_mcp_forge_request_duration_seconds",
    help: "Forge HTTP calls (REST, GraphQL, OAuth, token checks) by method and status class (0xx: unreachable)",
    labelNames: ["method", "status_class"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly tokenCache = this.counter(
    "forge_mcp_token_cache_lookups_total",
    "Bearer tokens looked up in the verification cache (oauth: signed-in clients, remote: REMOTE_AUTHORIZATION), hit or miss",
    ["cache", "result"] as const,
  );
  readonly oauth = this.counter(
    "forge_mcp_oauth_requests_total",
    "OAuth endpoint requests by endpoint and status class",
    ["endpoint", "status_class"] as const,
  );
  readonly oauthEvents = this.counter(
    "forge_mcp_oauth_events_total",
    "OAuth events by kind (group_refused: a sign-in refused by GITLAB_OAUTH_ALLOWED_GROUPS; refresh_reuse: a refresh token used twice, its family revoked)",
    ["event"] as const,
  );
  readonly rateLimited = this.counter(
    "forge_mcp_rate_limited_total",
    "Requests refused with 429 by one of the per-address budgets, by endpoint",
    ["endpoint"] as const,
  );

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "forge_mcp_" });
  }

  /** A counter in this server's registry. */
  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** Counts OAuth endpoint answers and every 429, from the response as it finishes (one place). */
  requests(): RequestHandler {
    return (req, res, next) => {
      const endpoint =
        OAUTH_ENDPOINTS.find((p) => req.path === p) ?? (req.path === "/mcp" ? "/mcp" : undefined);
      if (endpoint)
        res.on("finish", () => {
          const statusClass = `${Math.floor(res.statusCode / 100)}xx`;
          if (endpoint !== "/mcp") this.oauth.inc({ endpoint, status_class: statusClass });
          if (res.statusCode === 429) this.rateLimited.inc({ endpoint });
        });
      next();
    };
  }
}

const OAUTH_ENDPOINTS = ["/register", "/authorize", "/authorize/consent", "/callback", "/token", "/revoke"];

/**
 * GET /metrics: behind a bearer token (METRICS_BEARER_TOKEN) when one is set, compared in
 * constant time; a wrong or missing one gets 401 and no metrics.
 */
export function metricsApp(metrics: Metrics, bearer: string | undefined): Express {
  const app = express();
  app.disable("x-powered-by");
  app.get("/metrics", async (req, res) => {
    if (bearer !== undefined) {
      const got = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1] ?? "");
      const want = Buffer.from(bearer);
      if (got.length !== want.length || !timingSafeEqual(got, want)) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
        return void res.status(401).json({ error: "invalid_token" });
      }
    }
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.setHeader("Cache-Control", "no-store");
    res.end(await metrics.registry.metrics());
  });
  return app;
}
