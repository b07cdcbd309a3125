import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express, type NextFunction, type Request, type Response, type Router } from "express";
import { SimClock } from "./clock.js";
import { createExpressServer } from "./express-server.js";
import { type FaultConfig, FaultInjector, faultMiddleware } from "./faults.js";
import { IdGenerator, Prng } from "./prng.js";
import type { RateLimitHeaders } from "./rate-limit.js";
import { RequestLog } from "./request-log.js";

/** What a simulator hands to its routes. `state` is read at request time: a reset replaces it. */
export interface SimContext<S> {
  readonly name: string;
  readonly state: S;
  readonly clock: SimClock;
  readonly ids: IdGenerator;
  /** Absolute base URL of this simulator's API (origin + basePath), known once listening. */
  readonly baseUrl: string;
  readonly origin: string;
}

/** One simulator: its wire routes, its in-memory state and how it is seeded and dumped. */
export interface SimDefinition<S = unknown> {
  name: string;
  /** Path under which the provider's API lives (`/v1`, `/api/v3`, ...); the printed base URL ends with it. */
  basePath: string;
  createState(ctx: { ids: IdGenerator; clock: SimClock }): S;
  /**
   * Middleware for every wire request that must run before the fault injector and the body
   * parsers, so that their answers (injected faults, malformed bodies) are shaped by it too.
   */
  before?(app: Express, ctx: SimContext<S>): void;
  /** Mounts the wire API. Routes are relative to the origin (include basePath yourself). */
  routes(app: Express, ctx: SimContext<S>): void;
  /** The provider's error body for a given status and message (used for faults and unknown routes). */
  errorBody(status: number, message: string): unknown;
  /** The provider's request-limit headers (`rateLimit` fault); a 429 with `Retry-After` only when absent. */
  rateLimitHeaders?: RateLimitHeaders;
  /** POST /_sim/seed: adds objects to the state. */
  seed?(ctx: SimContext<S>, body: unknown): unknown;
  /** GET /_sim/state: everything the simulator holds, for tests that check for orphans. */
  dump(ctx: SimContext<S>): unknown;
}

export interface SimOptions {
  port?: number;
  host?: string;
  seed?: number;
  faults?: FaultConfig;
  /** Called for every served request; tests use it rarely, the log is usually enough. */
  quiet?: boolean;
}

export interface RunningSim {
  name: string;
  url: string;
  origin: string;
  port: number;
  clock: SimClock;
  faults: FaultInjector;
  log: RequestLog;
  /** Direct access to the live state for in-process tests. */
  state(): unknown;
  reset(): void;
  close(): Promise<void>;
}

export async function createSim<S>(def: SimDefinition<S>, opts: SimOptions = {}): Promise<RunningSim> {
  const clock = new SimClock();
  const prng = new Prng(opts.seed ?? 42);
  const ids = new IdGenerator(prng);
  const faults = new FaultInjector(def.rateLimitHeaders);
  if (opts.faults) faults.set(opts.faults);
  const log = new RequestLog();
  let state = def.createState({ ids, clock });
  let origin = "";

  const ctx: SimContext<S> = {
    name: def.name,
    get state() {
      return state;
    },
    clock,
    ids,
    get baseUrl() {
      return origin + def.basePath;
    },
    get origin() {
      return origin;
    },
  };

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "extended");

  app.use("/_sim", controlRouter(def, ctx, { faults, log, clock, reset }));

  // Log every wire request with its final status, and run it through the fault injector first.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    // Read now: once a mounted router has the request, req.path is relative to its mount point.
    const path = req.path;
    res.on("finish", () => {
      log.add({
        atMs: clock.now(),
        method: req.method,
        path,
        status: res.statusCode,
        durationMs: Math.round(performance.now() - started),
        headers: req.headers,
        ...(res.locals.fault ? { fault: res.locals.fault as string } : {}),
        ...(res.locals.delayedMs ? { delayedMs: res.locals.delayedMs as number } : {}),
      });
    });
    // A response that never finished (the client went away mid-stream, as SSE readers do, or a fault
    // cut the connection) is logged too, marked aborted: status is what was sent (0 when nothing was,
    // and for fault cuts, which the client never sees an answer to).
    res.on("close", () => {
      if (res.writableFinished) return;
      const fault = res.locals.fault as string | undefined;
      log.add({
        atMs: clock.now(),
        method: req.method,
        path,
        status: fault || !res.headersSent ? 0 : res.statusCode,
        durationMs: Math.round(performance.now() - started),
        headers: req.headers,
        aborted: true,
        ...(fault ? { fault } : {}),
        ...(res.locals.delayedMs ? { delayedMs: res.locals.delayedMs as number } : {}),
      });
    });
    next();
  });
  def.before?.(app, ctx);
  // The body is read before the fault injector's latency, and a request whose client died while the
  // latency or a hold kept it is dropped there (faults.ts): a route never takes a body that was not
  // all sent for a request without fields (nameless vaults in the crash storm).
  app.use(express.json({ limit: "50mb", type: ["application/json", "application/merge-patch+json"] }));
  app.use(express.urlencoded({ extended: false, limit: "1mb" }));
  app.use(
    faultMiddleware(
      faults,
      def.errorBody,
      (_req, label) => {
        _req.res!.locals.fault = label;
      },
      () => clock.now(),
    ),
  );

  def.routes(app, ctx);

  app.use((_req: Request, res: Response) => {
    res.status(404).json(def.errorBody(404, "route not found"));
  });
  // Malformed JSON and handler failures answer in the provider's error shape, never with a stack.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status =
      typeof (err as { status?: unknown }).status === "number" ? (err as { status: number }).status : 500;
    // A 4xx error may carry a message meant for the caller (e.g. why a seed was refused).
    const publicMessage = (err as { publicMessage?: unknown }).publicMessage;
    const message =
      status >= 500
        ? "internal simulator error"
        : typeof publicMessage === "string"
          ? publicMessage
          : "invalid request body";
    if (status >= 500 && !opts.quiet) console.error(`[${def.name}]`, err);
    if (!res.headersSent) res.status(status).json(def.errorBody(status, message));
  });

  function reset(): void {
    state = def.createState({ ids, clock });
    log.clear();
    faults.clear();
    clock.reset();
  }

  const server: Server = createExpressServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.keepAliveTimeout = 5_000;
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  origin = `http://${host}:${address.port}`;

  return {
    name: def.name,
    url: origin + def.basePath,
    origin,
    port: address.port,
    clock,
    faults,
    log,
    state: () => state,
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function controlRouter<S>(
  def: SimDefinition<S>,
  ctx: SimContext<S>,
  parts: { faults: FaultInjector; log: RequestLog; clock: SimClock; reset: () => void },
): Router {
  const r = express.Router();
  r.use(express.json({ limit: "50mb" }));
  r.get("/health", (_req, res) => {
    res.json({ name: def.name, ok: true, base_url: ctx.baseUrl });
  });
  r.post("/reset", (_req, res) => {
    parts.reset();
    res.json({ ok: true });
  });
  r.post("/seed", (req, res) => {
    if (!def.seed) return void res.status(404).json({ error: "this simulator takes no seed" });
    res.json(def.seed(ctx, req.body) ?? { ok: true });
  });
  r.get("/state", (_req, res) => {
    res.json(def.dump(ctx));
  });
  r.get("/faults", (_req, res) => {
    res.json(parts.faults.get());
  });
  r.put("/faults", (req, res) => {
    try {
      parts.faults.set(req.body ?? {});
      res.json(parts.faults.get());
    } catch (e) {
      res.status(400).json({ error: (e as Error).message });
    }
  });
  r.delete("/faults", (_req, res) => {
    parts.faults.clear();
    res.json({ ok: true });
  });
  r.get("/held", (_req, res) => {
    res.json({ held: parts.faults.heldCount() });
  });
  r.post("/release", (_req, res) => {
    res.json({ released: parts.faults.release() });
  });
  r.get("/log", (req, res) => {
    res.json({ entries: parts.log.since(Number(req.query.since ?? 0)) });
  });
  r.delete("/log", (_req, res) => {
    parts.log.clear();
    res.json({ ok: true });
  });
  r.get("/clock", (_req, res) => {
    res.json({ now: parts.clock.iso(), now_ms: parts.clock.now() });
  });
  r.post("/clock", (req, res) => {
    const body = (req.body ?? {}) as { advance_ms?: number; advance_seconds?: number };
    const ms = body.advance_ms ?? (body.advance_seconds ?? 0) * 1000;
    try {
      parts.clock.advance(ms);
      res.json({ now: parts.clock.iso(), now_ms: parts.clock.now() });
    } catch (e) {
      res.status(400).json({ error: (e as Error).message });
    }
  });
  return r;
}
