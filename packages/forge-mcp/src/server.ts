import { hkdfSync, randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import express, { type Express, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { ForgeApi } from "./forge/api.js";
import { onForgeCall } from "./forge/http.js";
import { ForgeOAuthClient } from "./forge/oauth-client.js";
import { ProjectScope } from "./forge/project-scope.js";
import { forgeUnauthorizedReply } from "./forge/unauthorized.js";
import { ForgeTokenVerifier } from "./forge/verify.js";
import { JsonCallTransport, plainCall } from "./json-calls.js";
import { createLogger } from "./logger.js";
import { Metrics, metricsApp } from "./metrics.js";
import { bearerChecks } from "./oauth/bearer.js";
import { ClientMetadataResolver } from "./oauth/client-metadata.js";
import { ConsentGuard } from "./oauth/consent.js";
import { mountDiscovery } from "./oauth/discovery.js";
import { GroupGate } from "./oauth/group-gate.js";
import { globToRegExp } from "./oauth/redirect-uris.js";
import { RelayBudget } from "./oauth/relay-budget.js";
import { remoteAuthorization } from "./oauth/remote-auth.js";
import { oauthRouter } from "./oauth/routes.js";
import { scopePolicy } from "./oauth/scopes.js";
import { Sealer } from "./oauth/seal.js";
import { OAuthService } from "./oauth/service.js";
import { memorySharedState, redisSharedState, type SharedState } from "./oauth/shared-state.js";
import { stepUpCheck, toolCalled } from "./oauth/step-up.js";
import { memoryStores, sealedStores } from "./oauth/stores.js";
import { originGuard } from "./origin-guard.js";
import { HttpAsker } from "./tools/confirm.js";
import { annotations, type ToolCall, toolNames, writes } from "./tools/define.js";
import { createMcpServer, LIST_CHANGING_TOOLS, LoadedToolsets, servableTools } from "./tools/index.js";

const MAX_IDLE_SERVERS = 32;

export interface ServerOptions {
  logger?: Logger;
  /** Injectable clock (ms) for expiry tests. */
  now?: () => number;
  /** TEST ONLY: a CA (PEM) trusted for client metadata documents (a test's self-signed certificate), a shorter fetch timeout. */
  clientMetadataForTests?: { ca?: string; timeoutMs?: number };
}

export interface ForgeMcpServer {
  app: Express;
  verifier: ForgeTokenVerifier | undefined;
  /** The in-memory OAuth store (memory mode only), exposed for eviction tests. */
  memoryStore: ReturnType<typeof memoryStores>["lru"] | undefined;
  /** GET /metrics, to be served on METRICS_PORT (set only then). */
  metricsApp: Express | undefined;
  /** How many McpServer objects /mcp has built, and how many wait in the JSON path's pool (tests). */
  mcpPool(): { built: number; idle: number };
  close(): Promise<void>;
}

/**
 * The Express app, built in four steps: the plumbing every route shares (path prefix, headers,
 * health), the OAuth side when the server signs users in (discovery, authorization routes, bearer
 * checks), the MCP endpoint, and the last-stop error handler.
 */
export async function createServer(config: Config, options: ServerOptions = {}): Promise<ForgeMcpServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? Date.now;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxy);
  let oauth: OAuthSide | undefined;
  const prefix = mountPlumbing(app, config, () => oauth?.shared);
  // metrics when asked for (METRICS_PORT, METRICS_BEARER_TOKEN): on their own app and port, or
  // at /metrics here behind the bearer token
  const metrics = config.metricsPort !== undefined || config.metricsToken ? new Metrics() : undefined;
  const unsubscribe = metrics
    ? onForgeCall((method, status, seconds) =>
        metrics.forgeLatency.observe({ method, status_class: `${Math.floor(status / 100)}xx` }, seconds),
      )
    : undefined;
  const ownMetricsApp = metrics && metricsApp(metrics, config.metricsToken);
  if (metrics) app.use(metrics.requests());
  if (ownMetricsApp && config.metricsPort === undefined) app.use(ownMetricsApp);
  if (config.remoteOAuth)
    oauth = await mountOAuth(app, config, prefix, logger, now, options.clientMetadataForTests, metrics);
  else if (!config.forgeToken && !config.remoteAuthorization) {
    logger.warn(
      "no FORGE_TOKEN and FORGE_MCP_OAUTH is off: /mcp tool calls will fail until a token is configured",
    );
  }
  const perRequestTokens = config.remoteAuthorization
    ? [
        remoteAuthorization({
          apiUrl: config.forgeApiUrl,
          allowedOrigins: config.forgeOrigins && new Set(config.forgeOrigins),
          timeoutMs: config.forgeTimeoutMs,
          perMinute: config.verifyRateLimitPerMinute,
          logger,
          now,
          onLookup: (hit) => metrics?.tokenCache.inc({ cache: "remote", result: hit ? "hit" : "miss" }),
        }),
      ]
    : [];
  const mcpPool = mountMcp(
    app,
    config,
    oauth?.mcpHandlers ?? perRequestTokens,
    logger,
    oauth?.mcpAfterBody ?? [],
    oauth?.reauth,
    toolObserver(logger, metrics),
  );
  app.use(lastStop(logger));

  return {
    app,
    verifier: oauth?.verifier,
    memoryStore: oauth?.memoryStore,
    metricsApp: config.metricsPort !== undefined ? ownMetricsApp : undefined,
    mcpPool,
    async close() {
      unsubscribe?.();
      await oauth?.shared.close();
    },
  };
}

const MCP_PATH = "/mcp";

/** Path prefix, headers every answer carries, and the health checks. Returns the prefix ("" when none). */
function mountPlumbing(app: Express, config: Config, store: () => SharedState | undefined): string {
  // MCP_SERVER_URL may carry a path prefix (https://host/gitlab): every route answers under it as
  // well as at the root, whether the proxy in front forwards the prefix or strips it.
  const prefix = new URL(config.mcpServerUrl).pathname.replace(/\/+$/, "");
  if (prefix) {
    app.use((req, _res, next) => {
      if (req.url === prefix || req.url.startsWith(`${prefix}/`) || req.url.startsWith(`${prefix}?`))
        req.url = req.url.slice(prefix.length) || "/";
      next();
    });
  }
  // no answer of ours is ever to be sniffed into another content type (an error as HTML, say)
  app.use((_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    next();
  });
  if (config.replicaName) {
    const name = config.replicaName;
    app.use((_req, res, next) => {
      res.setHeader("x-replica", name);
      next();
    });
  }
  // /health is what container healthchecks and load balancers ask by default; /healthz stays. It is
  // liveness: always 200 at once, with the store's last known state (no I/O). /ready is readiness:
  // it asks the store (bounded by REDIS_TIMEOUT_MS) and answers 503 while it is down.
  app.get(["/health", "/healthz"], (_req, res) => {
    const s = store();
    res.setHeader("Cache-Control", "no-store");
    res.json(s ? { ok: true, store: s.health() } : { ok: true });
  });
  app.get("/ready", async (_req, res) => {
    const s = await store()?.check();
    res.setHeader("Cache-Control", "no-store");
    res.status(s && !s.up ? 503 : 200).json(s ? { ready: s.up, store: s } : { ready: true });
  });
  return prefix;
}

interface OAuthSide {
  shared: SharedState;
  verifier: ForgeTokenVerifier;
  memoryStore: ForgeMcpServer["memoryStore"];
  /** What /mcp runs before the body is read: the verify budget and the bearer check. */
  mcpHandlers: express.RequestHandler[];
  /** What /mcp runs once the body is read: the step-up check. */
  mcpAfterBody: express.RequestHandler[];
  /** How /mcp answers when the forge refuses a verified token on a tool's call. */
  reauth: Reauth;
}

interface Reauth {
  verifier: ForgeTokenVerifier;
  resourceMetadataUrl: string;
}

/** The OAuth stores: sealed into the messages (stateless replicas) or kept in memory. */
function oauthStores(
  config: Config,
  shared: SharedState,
  now: () => number,
): {
  stores: ReturnType<typeof sealedStores>;
  consentKeys: Buffer[];
  memoryStore: ForgeMcpServer["memoryStore"];
} {
  if (config.stateless) {
    const derive = (secret: Buffer) =>
      Buffer.from(hkdfSync("sha256", secret, "forge-mcp/consent/v1", "consent-csrf", 32));
    return {
      stores: sealedStores(
        new Sealer(config.statelessSecret!, config.statelessSecretPrevious, now),
        shared.guard,
      ),
      consentKeys: [config.statelessSecret!, config.statelessSecretPrevious]
        .filter((s): s is Buffer => s !== undefined)
        .map(derive),
      memoryStore: undefined,
    };
  }
  const mem = memoryStores(now);
  return {
    stores: mem,
    consentKeys: [randomBytes(32)],
    memoryStore: mem.lru,
  };
}

/** Discovery metadata, the authorization routes, and the bearer checks /mcp runs. */
async function mountOAuth(
  app: Express,
  config: Config,
  prefix: string,
  logger: Logger,
  now: () => number,
  clientMetadataForTests: ServerOptions["clientMetadataForTests"],
  metrics: Metrics | undefined,
): Promise<OAuthSide> {
  const appId = config.oauthAppId!;
  const shared = config.redisUrl
    ? await redisSharedState(config.redisUrl, config.registerRateLimitPerHour, now, {
        connectTimeoutMs: config.redisConnectTimeoutMs,
        callTimeoutMs: config.redisTimeoutMs,
        warn: (msg) => logger.warn(msg),
      })
    : memorySharedState(config.registerRateLimitPerHour, now);
  const { stores, consentKeys, memoryStore } = oauthStores(config, shared, now);
  const mode = config.callbackProxy ? "proxy" : "passthrough";
  const scopes = scopePolicy(config);
  const allowlist = config.redirectUriAllowlist.map(globToRegExp);
  if (config.cimdAllowLoopbackForTests)
    logger.warn("FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS is on: for tests only, never in production");
  const clientMetadata = new ClientMetadataResolver({
    allowlist,
    fetchesPerMinute: config.clientMetadataFetchesPerMinute,
    allowLoopbackForTests: config.cimdAllowLoopbackForTests,
    ...(clientMetadataForTests?.ca ? { testCa: clientMetadataForTests.ca } : {}),
    ...(clientMetadataForTests?.timeoutMs ? { timeoutMs: clientMetadataForTests.timeoutMs } : {}),
    logger,
    now,
  });
  const service = new OAuthService({
    mode,
    consentPage: config.consentPage,
    mcpServerUrl: config.mcpServerUrl,
    resources: [`${config.mcpServerUrl}${MCP_PATH}`, config.mcpServerUrl, `${config.mcpServerUrl}/`],
    forgeRootUrl: config.forgeRootUrl,
    scopes: scopes.supported,
    defaultScopes: scopes.signIn,
    allowlist,
    forge: new ForgeOAuthClient(config.forgeRootUrl, appId, config.forgeTimeoutMs),
    ...stores,
    registerLimiter: shared.registerLimiter,
    relayBudget: new RelayBudget(config.relayRateLimitPerMinute, now),
    consent: new ConsentGuard(consentKeys),
    clientMetadata,
    onEvent: (event) => metrics?.oauthEvents.inc({ event }),
    groupGate:
      config.allowedGroups.length > 0
        ? new GroupGate(config.allowedGroups, config.forgeApiUrl, config.forgeTimeoutMs)
        : undefined,
    logger,
    now,
  });
  const resourceUrl = new URL(`${config.mcpServerUrl}${MCP_PATH}`);
  mountDiscovery(
    app,
    { serverUrl: config.mcpServerUrl, resourceUrl, scopes: scopes.supported, mode },
    prefix,
  );
  app.use(oauthRouter(service, { mode, secureCookies: config.mcpServerUrl.startsWith("https:"), logger }));
  const verifier = new ForgeTokenVerifier({
    rootUrl: config.forgeRootUrl,
    appId,
    acceptedScopes: scopes.accepted,
    timeoutMs: config.forgeTimeoutMs,
    queryFallback: config.tokenInfoQueryFallback,
    logger,
    now,
    onLookup: (hit) => metrics?.tokenCache.inc({ cache: "oauth", result: hit ? "hit" : "miss" }),
  });
  // RFC 9728 §3.1: the well-known segment goes between the origin and the resource's path
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);
  const mcpHandlers = bearerChecks(verifier, {
    perMinute: config.verifyRateLimitPerMinute,
    resourceMetadataUrl,
    scope: scopes.signIn,
    now,
  });
  // every tool a caller may load with discover_tools, by each name it answers to
  const writingTools = new Set(servableTools(config).filter(writes).flatMap(toolNames));
  const mcpAfterBody = scopes.stepUp ? [stepUpCheck({ writingTools, resourceMetadataUrl, logger })] : [];
  return {
    shared,
    verifier,
    memoryStore,
    mcpHandlers,
    mcpAfterBody,
    reauth: { verifier, resourceMetadataUrl },
  };
}

/** POST /mcp (stateless Streamable HTTP), behind the origin guard and the bearer checks; GET/DELETE 405. */
function mountMcp(
  app: Express,
  config: Config,
  mcpHandlers: express.RequestHandler[],
  logger: Logger,
  afterBody: express.RequestHandler[],
  reauth: Reauth | undefined,
  observe: (call: ToolCall) => void,
): ForgeMcpServer["mcpPool"] {
  const asker = new HttpAsker();
  const destructive = new Set(
    servableTools(config)
      .filter((t) => annotations(t).destructiveHint)
      .flatMap(toolNames),
  );
  const toolOpts = {
    readOnly: config.readOnly,
    permission: config.permission,
    extraTools: config.extraTools,
    deniedTools: config.deniedTools,
    defaultProject: config.defaultProject,
    toolsets: config.toolsets,
    confirm: { mode: config.confirmDestructive, asker },
    observe,
    loaded: new LoadedToolsets(),
  };
  // A request's verified token (req.auth, the tools' extra.authInfo) → what a forge 401 does.
  const onForge401 = new WeakMap<object, () => void>();
  // one project scope per forge (project ids are a forge's own); a request's forge is its
  // X-GitLab-API-URL under REMOTE_AUTHORIZATION (src/oauth/remote-auth.ts), the configured one otherwise
  const scopes = new Map<string, ProjectScope>();
  const scopeFor = (apiUrl: string) => {
    if (config.allowedProjects.length === 0) return undefined;
    const known = scopes.get(apiUrl);
    if (known) return known;
    const s = new ProjectScope(config.allowedProjects);
    scopes.set(apiUrl, s);
    return s;
  };
  const apiFor = (extra: { authInfo?: { token: string; extra?: Record<string, unknown> } | undefined }) => {
    const chosen = extra.authInfo?.extra?.apiUrl;
    const apiUrl = typeof chosen === "string" ? chosen : config.forgeApiUrl;
    return new ForgeApi(
      apiUrl,
      extra.authInfo?.token ?? config.forgeToken ?? "",
      config.forgeTimeoutMs,
      extra.authInfo && onForge401.get(extra.authInfo),
      scopeFor(apiUrl),
      // a CI/CD job token (REMOTE_AUTHORIZATION's JOB-TOKEN) goes on to the forge as JOB-TOKEN
      (extra.authInfo ? extra.authInfo.extra?.tokenKind === "job" : config.forgeTokenKind === "job")
        ? "job"
        : "bearer",
    );
  };

  // Stateless Streamable HTTP: a fresh transport per request, so any replica serves any call. The
  // McpServer objects are pooled: building one (tool schemas, a JSON-schema validator) costs more
  // than the rest of a request. Nothing user-specific lives in them (the token travels per request
  // in extra.authInfo); only the last initialize's client info does, which no tool uses.
  const idleServers: McpServer[] = [];
  // The JSON path (src/json-calls.ts): servers that stay connected to a transport of their own and
  // carry one call at a time, so a call neither builds nor closes a transport.
  const idleConnected: { server: McpServer; transport: JsonCallTransport }[] = [];
  let built = 0;
  const build = () => {
    built++;
    return createMcpServer(toolOpts, apiFor);
  };
  const connected = async (server = build()) => {
    const transport = new JsonCallTransport();
    await server.connect(transport);
    return { server, transport };
  };
  app.use(
    MCP_PATH,
    originGuard({
      mcpServerUrl: config.mcpServerUrl,
      remoteOAuth: config.remoteOAuth,
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.allowedOrigins,
    }),
  );
  // Authenticate before reading the body: an anonymous caller never gets us to parse megabytes.
  app.post(
    MCP_PATH,
    ...mcpHandlers,
    express.json({ limit: "4mb" }),
    ...afterBody,
    async (req: Request, res: Response) => {
      const auth = (req as Request & { auth?: { token: string } }).auth;
      const token = auth?.token;
      if (reauth && auth) {
        const reply401 = forgeUnauthorizedReply(res, reauth.resourceMetadataUrl);
        onForge401.set(auth, () => {
          logger.info("forge refused a verified token on a tool call: answering 401 invalid_token");
          reauth.verifier.evict(auth.token);
          reply401();
        });
      }
      // a client's answer to a confirmation we asked for goes to the tool call waiting for it
      if (asker.deliver(req.body, token)) return void res.status(202).end();
      asker.noteInitialize(req.body, token);
      // an event stream only where a destructive tool may ask its client during the call
      // (and where discover_tools sends notifications/tools/list_changed)
      const json =
        toolCalled(req.body, LIST_CHANGING_TOOLS) === undefined &&
        (config.confirmDestructive === "off" ||
          !asker.mayAsk(token) ||
          toolCalled(req.body, destructive) === undefined);
      const call = json ? plainCall(req.headers, req.body) : undefined;
      if (call) {
        try {
          const entry = idleConnected.pop() ?? (await connected());
          let answered = false;
          // the caller went away: closing the transport aborts the call (its late answer goes to
          // that closed transport, which drops it), and the server, connected to a fresh one, goes
          // back to the pool: building a server costs milliseconds of the event loop, which a
          // wave of callers timing out would otherwise pay once each (the SDK keeps an aborted
          // call apart from a later one with the same id, bench/results/forge-mcp-profile.md)
          res.once("close", () => {
            if (answered) return;
            void entry.server
              .close()
              .then(() => connected(entry.server))
              .then((again) => {
                if (idleConnected.length < MAX_IDLE_SERVERS) idleConnected.push(again);
              })
              .catch((err: Error) => logger.warn({ err: err.message }, "mcp server not pooled again"));
          });
          const answer = await entry.transport.call(call, {
            authInfo: auth as Parameters<typeof entry.transport.call>[1]["authInfo"],
            requestInfo: { headers: req.headers },
          });
          answered = true;
          if (answer === undefined) return;
          if (idleConnected.length < MAX_IDLE_SERVERS) idleConnected.push(entry);
          if (res.headersSent || res.destroyed) return;
          const text = JSON.stringify(answer);
          res.writeHead(200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(text),
          });
          res.end(text);
        } catch (err) {
          logger.error({ err: (err as Error).message }, "mcp request failed");
          if (!res.headersSent)
            res
              .status(500)
              .json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null });
        }
        return;
      }
      const server = idleServers.pop() ?? build();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: json,
      });
      res.on("close", () => {
        void transport.close().then(() => {
          if (idleServers.length < MAX_IDLE_SERVERS) idleServers.push(server);
        });
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
      } catch (err) {
        logger.error({ err: (err as Error).message }, "mcp request failed");
        if (!res.headersSent)
          res
            .status(500)
            .json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null });
      }
    },
  );
  const notAllowed = (_req: Request, res: Response) => {
    res
      .status(405)
      .set("Allow", "POST")
      .json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed" }, id: null });
  };
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
  return () => ({ built, idle: idleConnected.length });
}

/**
 * What every finished tool call feeds: the tool-call counter, and for a writing tool (its
 * readOnlyHint is false) one structured audit line: who (the forge user id or username the token
 * was verified as; "server token" for FORGE_TOKEN), which tool, which project (the value of the
 * first argument naming one), the outcome. Never a token, never any other argument or a body.
 */
export function toolObserver(logger: Logger, metrics: Metrics | undefined): (call: ToolCall) => void {
  return ({ tool, args, authInfo, outcome }) => {
    metrics?.toolCalls.inc({ tool: tool.name, outcome });
    if (!writes(tool)) return;
    const who = authInfo?.extra?.username ?? authInfo?.extra?.userId;
    const projectKey = Object.keys(args).find((k) => /(^|_)project_id$/.test(k));
    logger.info(
      {
        audit: {
          user: who === undefined ? (authInfo ? "unknown" : "server token") : String(who),
          tool: tool.name,
          project: projectKey === undefined ? null : String(args[projectKey]),
          outcome,
        },
      },
      "tool call",
    );
  };
}

/**
 * Last stop for errors Express itself raises (malformed JSON or form bodies, oversized bodies):
 * an RFC 6749-shaped answer with a generic message, never Express's default page with a stack.
 */
function lastStop(logger: Logger) {
  return (
    err: Error & { status?: number; type?: string },
    _req: Request,
    res: Response,
    _next: express.NextFunction,
  ) => {
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 500;
    logger.warn({ status, type: err.type ?? err.name }, "request rejected before reaching a handler");
    if (res.headersSent) return;
    res
      .status(status)
      .json(
        status === 500
          ? { error: "server_error", error_description: "Internal error." }
          : { error: "invalid_request", error_description: "The request body could not be read." },
      );
  };
}

/** Listens and resolves with the bound port (0 = ephemeral). */
export function listen(app: Express, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
}
