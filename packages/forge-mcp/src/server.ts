import { hkdfSync, randomBytes } from "node:crypto";
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import express, { type Express, type Request, type Response } from "express";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import { BODY_UNREADABLE, bodyLimit } from "./body-limit.js";
import type { Config } from "./config.js";
import { ForgeApi } from "./forge/api.js";
import { onForgeCall } from "./forge/http.js";
import { ForgeOAuthClient } from "./forge/oauth-client.js";
import { ProjectIds } from "./forge/project-ids.js";
import { ProjectScope } from "./forge/project-scope.js";
import { forgeUnauthorizedReply } from "./forge/unauthorized.js";
import { ForgeTokenVerifier } from "./forge/verify.js";
import { createLogger } from "./logger.js";
import type { CancelRelay } from "./mcp/cancels.js";
import { unprefixed } from "./mcp/client-view.js";
import { McpHttp, refuse } from "./mcp/http.js";
import { plainCall, plainHeaders } from "./mcp/json-calls.js";
import { classify } from "./mcp/rev2026.js";
import { MCP_BODY_LIMIT, mcpLane } from "./mcp-lane.js";
import type { Metrics } from "./metrics.js";
import { bearerChecks } from "./oauth/bearer.js";
import { ClientMetadataResolver } from "./oauth/client-metadata.js";
import { ConsentGuard } from "./oauth/consent.js";
import { GroupGate } from "./oauth/group-gate.js";
import { globToRegExp } from "./oauth/redirect-uris.js";
import { RefreshFamilies } from "./oauth/refresh-families.js";
import { RelayBudget } from "./oauth/relay-budget.js";
import { remoteAuthorization } from "./oauth/remote-auth.js";
import { oauthRouter } from "./oauth/routes.js";
import { scopePolicy } from "./oauth/scopes.js";
import { requestStateSealer, Sealer } from "./oauth/seal.js";
import { OAuthService } from "./oauth/service.js";
import { memorySharedState, redisSharedState, type SharedState } from "./oauth/shared-state.js";
import { modernStepUp, stepUpCheck, stepUpNeeded, toolCalled } from "./oauth/step-up.js";
import { memoryStores, sealedStores } from "./oauth/stores.js";
import { originCheck, originGuard } from "./origin-guard.js";
import { HttpAsker } from "./tools/confirm.js";
import { annotations, type ToolCall, toolNames, writes } from "./tools/define.js";
import {
  createCatalogue,
  LIST_CHANGING_TOOLS,
  LoadedToolsets,
  PROGRESS_TOOLS,
  servableTools,
  toolExposure,
} from "./tools/index.js";

export interface ServerOptions {
  logger?: Logger;
  /** Injectable clock (ms) for expiry tests. */
  now?: () => number;
  /** TEST ONLY: a CA (PEM) trusted for client metadata documents (a test's self-signed certificate), a shorter fetch timeout. */
  clientMetadataForTests?: { ca?: string; timeoutMs?: number };
  /** false: every request goes through Express, none through the /mcp lane (tests compare the two). */
  lane?: boolean;
}

export interface ForgeMcpServer {
  /** Every route, Express's way. */
  app: Express;
  /** What to serve: the /mcp lane (src/mcp-lane.ts) in front of the app, or the app alone (`lane: false`). */
  handler: RequestListener;
  verifier: ForgeTokenVerifier | undefined;
  /** The in-memory OAuth store (memory mode only), exposed for eviction tests. */
  memoryStore: ReturnType<typeof memoryStores>["lru"] | undefined;
  /** GET /metrics, to be served on METRICS_PORT (set only then). */
  metricsApp: Express | undefined;
  /**
   * How many McpServer objects /mcp has built, how many wait in the JSON path's pool, how many
   * calls the JSON path answered without one, how many calls a notifications/cancelled can stop
   * now, and how many requests the lane answered (tests).
   */
  mcpPool(): { built: number; idle: number; direct: number; cancellable: number; lane: number };
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
  // (prom-client is loaded only then: a server without metrics never needs it resident)
  const metricsModule =
    config.metricsPort !== undefined || config.metricsToken ? await import("./metrics.js") : undefined;
  const metrics = metricsModule && new metricsModule.Metrics();
  const unsubscribe = metrics
    ? onForgeCall((method, status, seconds) =>
        metrics.forgeLatency.observe({ method, status_class: `${Math.floor(status / 100)}xx` }, seconds),
      )
    : undefined;
  const ownMetricsApp = metrics && metricsModule?.metricsApp(metrics, config.metricsToken);
  if (metrics) app.use(metrics.requests());
  if (ownMetricsApp && config.metricsPort === undefined) app.use(ownMetricsApp);
  // REDIS_URL: the state the replicas share (src/oauth/shared-state.ts), made here rather than in
  // the OAuth side because /mcp's cancels travel between replicas on it in every auth mode
  const redis = config.redisUrl
    ? await redisSharedState(config.redisUrl, config.registerRateLimitPerHour, now, {
        keyPrefix: config.redisKeyPrefix,
        connectTimeoutMs: config.redisConnectTimeoutMs,
        callTimeoutMs: config.redisTimeoutMs,
        warn: (msg) => logger.warn(msg),
      })
    : undefined;
  if (config.remoteOAuth)
    oauth = await mountOAuth(
      app,
      config,
      prefix,
      logger,
      now,
      options.clientMetadataForTests,
      metrics,
      redis,
    );
  else if (!config.forgeToken && !config.remoteAuthorization) {
    logger.warn(
      "no FORGE_TOKEN and FORGE_MCP_OAUTH is off: /mcp tool calls will fail until a token is configured",
    );
  }
  const auth: McpAuth =
    oauth?.mcpAuth ?? (config.remoteAuthorization ? remoteAuth(config, logger, now, metrics) : NO_AUTH);
  const mcp = mountMcp(
    app,
    config,
    auth,
    logger,
    oauth?.reauth,
    toolObserver(logger, metrics),
    now,
    redis?.cancels,
  );
  app.use(lastStop(logger));
  const headers: Record<string, string> = { "X-Content-Type-Options": "nosniff" };
  if (config.replicaName) headers["x-replica"] = config.replicaName;
  const lane =
    options.lane === false
      ? undefined
      : mcpLane({
          prefix,
          headers,
          originProblem: mcp.originProblem,
          admit: auth.known,
          answer: mcp.answer,
          app,
          logger,
        });
  const handler: RequestListener = lane ?? app;

  return {
    app,
    handler,
    verifier: oauth?.verifier,
    memoryStore: oauth?.memoryStore,
    metricsApp: config.metricsPort !== undefined ? ownMetricsApp : undefined,
    mcpPool: () => ({ ...mcp.pool(), lane: lane?.answered ?? 0 }),
    async close() {
      mcp.close();
      unsubscribe?.();
      await (redis ?? oauth?.shared)?.close();
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
  /** The bearer checks and the step-up check of /mcp. */
  mcpAuth: McpAuth;
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
  /** What the stores seal with (the refresh-token families seal their records with it too). */
  sealer: Sealer;
  consentKeys: Buffer[];
  memoryStore: ForgeMcpServer["memoryStore"];
} {
  if (config.stateless) {
    const derive = (secret: Buffer) =>
      Buffer.from(hkdfSync("sha256", secret, "forge-mcp/consent/v1", "consent-csrf", 32));
    const sealer = new Sealer(config.statelessSecret!, config.statelessSecretPrevious, now);
    return {
      stores: sealedStores(sealer, shared.guard),
      sealer,
      consentKeys: [config.statelessSecret!, config.statelessSecretPrevious]
        .filter((s): s is Buffer => s !== undefined)
        .map(derive),
      memoryStore: undefined,
    };
  }
  const sealer = new Sealer(randomBytes(32), undefined, now);
  const mem = memoryStores(now, sealer);
  return {
    stores: mem,
    sealer,
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
  redis: SharedState | undefined,
): Promise<OAuthSide> {
  const appId = config.oauthAppId!;
  // the discovery routes bring the SDK's metadata router and what it needs (CORS, rate limiting):
  // loaded only by a server that signs users in
  const { getOAuthProtectedResourceMetadataUrl, mountDiscovery } = await import("./oauth/discovery.js");
  const shared = redis ?? memorySharedState(config.registerRateLimitPerHour, now);
  const { stores, sealer: familySealer, consentKeys, memoryStore } = oauthStores(config, shared, now);
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
  const groupGate =
    config.allowedGroups.length > 0
      ? new GroupGate(config.allowedGroups, config.forgeApiUrl, config.forgeTimeoutMs)
      : undefined;
  const verifier = new ForgeTokenVerifier({
    rootUrl: config.forgeRootUrl,
    appId,
    acceptedScopes: scopes.accepted,
    timeoutMs: config.forgeTimeoutMs,
    queryFallback: config.tokenInfoQueryFallback,
    logger,
    now,
    onLookup: (hit) => metrics?.tokenCache.inc({ cache: "oauth", result: hit ? "hit" : "miss" }),
    // the group gate holds at /mcp too, for every token (one issued elsewhere included)
    admits: groupGate && ((token) => groupGate.admits(token)),
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
    families: new RefreshFamilies(shared.records, familySealer),
    onAccessRevoked: (token) => verifier.evict(token),
    registerLimiter: shared.registerLimiter,
    relayBudget: new RelayBudget(config.relayRateLimitPerMinute, now),
    consent: new ConsentGuard(consentKeys),
    clientMetadata,
    onEvent: (event) => metrics?.oauthEvents.inc({ event }),
    groupGate,
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
  // RFC 9728 §3.1: the well-known segment goes between the origin and the resource's path
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);
  // every tool a caller may load with discover_tools, by each name it answers to
  const writingTools = new Set(servableTools(config).filter(writes).flatMap(toolNames));
  const bearer = bearerChecks(verifier, {
    perMinute: config.verifyRateLimitPerMinute,
    resourceMetadataUrl,
    scope: scopes.signIn,
    now,
  });
  const mcpAuth: McpAuth = {
    // the verify budget and the bearer check, before the body is read
    before: bearer.handlers,
    // the step-up check, once it is
    after: scopes.stepUp ? [stepUpCheck({ writingTools, resourceMetadataUrl, logger })] : [],
    known: bearer.known,
    refusesBody: scopes.stepUp
      ? (auth, body) => stepUpNeeded(auth, body, writingTools) !== undefined
      : () => false,
    ...(scopes.stepUp && { modernStepUp: modernStepUp({ writingTools, resourceMetadataUrl, logger }) }),
  };
  return {
    shared,
    verifier,
    memoryStore,
    mcpAuth,
    reauth: { verifier, resourceMetadataUrl },
  };
}

/**
 * How /mcp knows its caller. The Express route runs `before` (ahead of the body parser) and
 * `after`; the lane (src/mcp-lane.ts) asks `known` and `refusesBody`, which answer from the same
 * state with the same rules, and leaves every case they cannot settle to the route.
 */
interface McpAuth {
  before: express.RequestHandler[];
  after: express.RequestHandler[];
  /** The caller's AuthInfo when the checks would let it through without a forge call; null: no credential is taken. */
  known(req: IncomingMessage): AuthInfo | null | undefined;
  /** Whether an `after` check would refuse this body from this caller. */
  refusesBody(auth: AuthInfo | undefined, body: unknown): boolean;
  /** Step-up under MCP 2026-07-28 (asked in the result), where step-up is on. */
  modernStepUp?: ReturnType<typeof modernStepUp>;
}

/** /mcp without a credential of the caller's (FORGE_TOKEN, or a local sign-in). */
const NO_AUTH: McpAuth = { before: [], after: [], known: () => null, refusesBody: () => false };

/** REMOTE_AUTHORIZATION: each request's own forge token (src/oauth/remote-auth.ts). */
function remoteAuth(
  config: Config,
  logger: Logger,
  now: () => number,
  metrics: Metrics | undefined,
): McpAuth {
  const remote = remoteAuthorization({
    apiUrl: config.forgeApiUrl,
    allowedOrigins: config.forgeOrigins && new Set(config.forgeOrigins),
    timeoutMs: config.forgeTimeoutMs,
    perMinute: config.verifyRateLimitPerMinute,
    projectScopeHeader: config.dynamicProjectScope,
    logger,
    now,
    onLookup: (hit) => metrics?.tokenCache.inc({ cache: "remote", result: hit ? "hit" : "miss" }),
  });
  return {
    before: [remote.check],
    after: [],
    known: remote.known,
    refusesBody: () => false,
  };
}

interface McpRoute {
  /** Ends what /mcp holds open (2026-07-28 listen streams). */
  close(): void;
  pool(): { built: number; idle: number; direct: number; cancellable: number };
  /** The origin guard's check (the route's middleware runs the same). */
  originProblem(headers: IncomingHttpHeaders): string | undefined;
  /** The lane's answer to a read body: true when it answers it (one plain call), false for the route. */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, auth: AuthInfo | undefined): boolean;
}

/** POST /mcp (stateless Streamable HTTP), behind the origin guard and the bearer checks; GET/DELETE 405. */
function mountMcp(
  app: Express,
  config: Config,
  auth: McpAuth,
  logger: Logger,
  reauth: Reauth | undefined,
  observe: (call: ToolCall) => void,
  now: () => number,
  cancelRelay: CancelRelay | undefined,
): McpRoute {
  const asker = new HttpAsker();
  const destructive = new Set(
    servableTools(config)
      .filter((t) => annotations(t).destructiveHint)
      .flatMap(toolNames),
  );
  const toolOpts = {
    ...toolExposure(config),
    confirm: { mode: config.confirmDestructive, asker },
    observe,
    loaded: new LoadedToolsets(),
  };
  // A request's verified token (req.auth, the tools' extra.authInfo) → what a forge 401 does.
  const onForge401 = new WeakMap<object, () => void>();
  // one project scope per forge (project ids are a forge's own); a request's forge is its
  // X-GitLab-API-URL under REMOTE_AUTHORIZATION (src/oauth/remote-auth.ts), the configured one otherwise
  const scopes = new Map<string, ProjectScope>();
  // a request's own list (X-GitLab-Allowed-Project-Ids under ENABLE_DYNAMIC_PROJECT_SCOPE) narrows its forge's
  const narrowed = new LRUCache<string, ProjectScope>({ max: 1000 });
  const scopeFor = (apiUrl: string, session: unknown) => {
    const own = Array.isArray(session) && config.dynamicProjectScope ? (session as string[]) : undefined;
    if (config.allowedProjects.length === 0 && !own) return undefined;
    let base = scopes.get(apiUrl);
    if (!base) {
      base = new ProjectScope(config.allowedProjects, { strict: config.strictProjectScope });
      scopes.set(apiUrl, base);
    }
    if (!own) return base;
    const key = `${apiUrl}\n${own.join(",")}`;
    let s = narrowed.get(key);
    if (!s) {
      s = base.narrowedTo(own);
      narrowed.set(key, s);
    }
    return s;
  };
  // a project path's id, per forge and token holder, for masking and the allow-list (./forge/project-ids.ts)
  const projectIds = new ProjectIds(now);
  const apiFor = (extra: { authInfo?: { token: string; extra?: Record<string, unknown> } | undefined }) => {
    const chosen = extra.authInfo?.extra?.apiUrl;
    const apiUrl = typeof chosen === "string" ? chosen : config.forgeApiUrl;
    return new ForgeApi(
      apiUrl,
      extra.authInfo?.token ?? config.forgeToken ?? "",
      config.forgeTimeoutMs,
      extra.authInfo && onForge401.get(extra.authInfo),
      scopeFor(apiUrl, extra.authInfo?.extra?.allowedProjects),
      // a CI/CD job token (REMOTE_AUTHORIZATION's JOB-TOKEN) goes on to the forge as JOB-TOKEN
      (extra.authInfo ? extra.authInfo.extra?.tokenKind === "job" : config.forgeTokenKind === "job")
        ? "job"
        : "bearer",
      projectIds,
    );
  };

  // Stateless Streamable HTTP (src/mcp/http.ts): a fresh transport per request, so any replica
  // serves any call, on servers built from the one catalogue
  // a 2026-07-28 requestState is sealed with the stateless secret where there is one (any replica
  // opens it), with a key of this process otherwise
  const mcp = new McpHttp(
    createCatalogue(toolOpts, apiFor),
    logger,
    requestStateSealer(config.statelessSecret, config.statelessSecretPrevious, now),
    auth.modernStepUp,
    cancelRelay,
  );
  const guard = {
    mcpServerUrl: config.mcpServerUrl,
    remoteOAuth: config.remoteOAuth,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
  };
  const originProblem = originCheck(guard);
  app.use(MCP_PATH, originGuard(guard));

  /** What a forge 401 on a tool's call does to this request's answer (remote OAuth). */
  const onReauth = (res: ServerResponse, info: AuthInfo | undefined) => {
    if (!reauth || !info) return;
    const reply401 = forgeUnauthorizedReply(res, reauth.resourceMetadataUrl);
    onForge401.set(info, () => {
      logger.info("forge refused a verified token on a tool call: answering 401 invalid_token");
      reauth.verifier.evict(info.token);
      reply401();
    });
  };

  /**
   * Whether the answer is one JSON body: an event stream is needed only where a destructive tool
   * may ask its client during the call, where discover_tools sends
   * notifications/tools/list_changed, and where a waiting tool was asked for progress.
   */
  const jsonAnswer = (body: unknown, token: string | undefined) =>
    toolCalled(body, LIST_CHANGING_TOOLS) === undefined &&
    (toolCalled(body, PROGRESS_TOOLS) === undefined || !progressAsked(body)) &&
    (config.confirmDestructive === "off" ||
      !asker.mayAsk(token) ||
      toolCalled(body, destructive) === undefined);

  // Authenticate before reading the body: an anonymous caller never gets us to parse megabytes.
  app.post(
    MCP_PATH,
    ...auth.before,
    bodyLimit(MCP_BODY_LIMIT, logger),
    express.json({ limit: MCP_BODY_LIMIT }),
    ...auth.after,
    async (req: Request, res: Response) => {
      const info = (req as Request & { auth?: AuthInfo }).auth;
      // MCP 2026-07-28 (src/mcp/rev2026.ts): the body names its revision; its requests are
      // answered by our own layer, a 2025 body goes on as before
      const era = classify(req.body, req.headers);
      if (era.era === "refused") return refuse(res, era.status, era.answer);
      if (era.era === "modern-notification") {
        // a cancel of a call of this caller's still running here stops it (src/mcp/cancels.ts)
        mcp.cancel(req.body, req.headers, info);
        return void res.status(202).end();
      }
      if (era.era === "modern") {
        onReauth(res, info);
        return mcp.answerModern(era.request, req.headers, res, info);
      }
      // MCP 2025-06-18 removed JSON-RPC batching: a client announcing that revision or a later
      // one gets one error for the whole array, and no element of it runs (no forge call)
      if (Array.isArray(req.body) && withoutBatching(req.headers["mcp-protocol-version"]))
        return void res.status(400).json(BATCH_REFUSED);
      // notifications/cancelled on a request of its own (stateless: no session carries it to the
      // call): accepted here where the SDK's transport would accept it, and the call it names
      // stops if it is this caller's and runs in this process (src/mcp/cancels.ts)
      if (plainHeaders(req.headers) && mcp.cancel(req.body, req.headers, info))
        return void res.status(202).end();
      const token = info?.token;
      // a client that asked for a tool-name prefix calls the tools by the names it was shown
      req.body = unprefixed(req.body, req.headers);
      onReauth(res, info);
      // a client's answer to a confirmation we asked for goes to the tool call waiting for it
      if (asker.deliver(req.body, token)) return void res.status(202).end();
      asker.noteInitialize(req.body, token);
      const json = jsonAnswer(req.body, token);
      const plain = json && plainHeaders(req.headers) ? plainCall(req.body) : undefined;
      if (plain) return mcp.answerPlain(plain, req.headers, res, info);
      try {
        await mcp.answerStream(req, res, req.body, json);
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
  return {
    pool: () => mcp.pool(),
    close: () => mcp.close(),
    originProblem,
    // The route's handler, for a body the lane has read and its checks passed: a plain call's
    // body has a method, so no confirmation answer is in it (asker.deliver) and it is not an
    // initialize (asker.noteInitialize); both are left to the route with anything not plain.
    answer: (req, res, given, info) => {
      if (auth.refusesBody(info, given)) return false;
      const era = classify(given, req.headers);
      if (era.era === "modern") {
        onReauth(res, info);
        void mcp.answerModern(era.request, req.headers, res, info);
        return true;
      }
      // a refusal, or a notification: the route answers it
      if (era.era !== "legacy") return false;
      const body = unprefixed(given, req.headers);
      if (!jsonAnswer(body, info?.token)) return false;
      // the lane checked the headers (a narrower test than plainHeaders)
      const plain = plainCall(body);
      if (!plain) return false;
      onReauth(res, info);
      void mcp.answerPlain(plain, req.headers, res, info);
      return true;
    },
  };
}

/** The first MCP revision without JSON-RPC batching (2025-03-26 had it). */
const FIRST_WITHOUT_BATCHING = "2025-06-18";

/** Whether the announced MCP-Protocol-Version is a revision without batching. */
function withoutBatching(version: unknown): boolean {
  return (
    typeof version === "string" && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= FIRST_WITHOUT_BATCHING
  );
}

const BATCH_REFUSED = {
  jsonrpc: "2.0",
  id: null,
  error: { code: -32600, message: "Invalid Request: this protocol revision has no batching" },
} as const;

/** Whether a body holds a tools/call whose `_meta` carries a progressToken. */
function progressAsked(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some((m) => {
    const p = (m as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } } | null) ?? {};
    const t = p.method === "tools/call" ? p.params?._meta?.progressToken : undefined;
    return typeof t === "string" || typeof t === "number";
  });
}

/**
 * What every finished tool call feeds: the tool-call counter, and for a writing tool (its
 * readOnlyHint is false) one structured audit line: who (the forge user id or username the token
 * was verified as; "server token" for FORGE_TOKEN), which tool, which project (the numeric id the
 * forge was called by, with what the caller named as `project_given` where that differs; see
 * AuditedProject), the outcome. Never a token, never any other argument or a body.
 */
export function toolObserver(logger: Logger, metrics: Metrics | undefined): (call: ToolCall) => void {
  return ({ tool, authInfo, outcome, project }) => {
    metrics?.toolCalls.inc({ tool: tool.name, outcome });
    if (!writes(tool)) return;
    const who = authInfo?.extra?.username ?? authInfo?.extra?.userId;
    logger.info(
      {
        audit: {
          user: who === undefined ? (authInfo ? "unknown" : "server token") : String(who),
          tool: tool.name,
          project: project ? project.called : null,
          ...(project?.given !== undefined && { project_given: project.given }),
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
        status === 500 ? { error: "server_error", error_description: "Internal error." } : BODY_UNREADABLE,
      );
  };
}

/** Serves a request listener (a server's `handler`, or an app) and resolves once it listens (port 0 = ephemeral). */
export function listen(handler: RequestListener, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createHttpServer(handler);
    s.once("error", reject);
    s.listen(port, host, () => {
      s.off("error", reject);
      resolve(s);
    });
  });
}
