import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { CallerGone } from "./caller-gone.js";
import {
  CANCEL_HASH,
  type CancelRelay,
  CancelTable,
  callKey,
  cancelHash,
  cancelNotice,
  endUnanswered,
} from "./cancels.js";
import type { Caller, Catalogue } from "./catalogue.js";
import { viewOf } from "./client-view.js";
import { JsonCallTransport, type PlainCall, requestOf, ToolDispatch } from "./json-calls.js";
import { ListenBus } from "./listen.js";
import {
  type ErrorAnswer,
  type ModernRequest,
  Rev2026,
  type ScopeGate,
  type StateSealer,
  SUBSCRIPTION_KEY,
} from "./rev2026.js";
import { createMcpServer, unknownToolAnswer } from "./sdk-server.js";

const MAX_IDLE_SERVERS = 32;
const SERVER_INFO = { name: "forge-mcp", version: "0.1.0" };
/** A comment line on an open listen stream this often, so idle proxies do not cut it. */
const LISTEN_KEEPALIVE_MS = 25_000;

/** What the layer knows of one plain request before a method runs. */
export interface PlainContext {
  caller: Caller | undefined;
  /**
   * The protocol revision the request is answered under, as its MCP-Protocol-Version header says
   * (undefined: none sent, the transport's default). Checked already: one the SDK speaks.
   */
  protocolVersion: string | undefined;
  headers: IncomingHttpHeaders;
  res: ServerResponse;
}

/** A method's answer on the JSON path, or undefined to leave the request to the SDK's server. */
type MethodHandler = (plain: PlainCall, ctx: PlainContext) => Promise<JSONRPCMessage | undefined>;

/**
 * Stateless Streamable HTTP for one catalogue: the two ways /mcp answers a POST whose checks have
 * passed. `answerPlain` takes one plain request answered as one JSON body (src/mcp/json-calls.ts:
 * a simple tools/call by the catalogue's own dispatch, any other by a pooled server connected to a
 * transport of its own); `answerStream` hands anything else to the SDK's transport (initialize,
 * batches, notifications, event streams, the transport's own errors).
 *
 * The McpServer objects are pooled, in one pool both ways draw from: building one (tool schemas, a
 * JSON-schema validator) costs more than the rest of a request. A server waits connected to a
 * JsonCallTransport of its own, so a plain call neither builds nor closes a transport; the SDK's
 * transport takes it off that one for its request and gives it a fresh one after. Nothing
 * user-specific lives in them (the token travels per request in the call's context); only the
 * last initialize's client info does, which no tool uses.
 */
export class McpHttp {
  // the pool: servers connected to a JsonCallTransport, which carries one call at a time
  private readonly idleConnected: { server: McpServer; transport: JsonCallTransport }[] = [];
  private built = 0;
  private readonly dispatch: ToolDispatch;
  /** MCP 2026-07-28's answers (src/mcp/rev2026.ts), and its listen streams. */
  private readonly modern: Rev2026;
  readonly listeners = new ListenBus();
  /** How to end each open listen stream. */
  private readonly open = new Set<() => void>();
  /** The calls running here that a notifications/cancelled can stop (src/mcp/cancels.ts). */
  readonly cancels = new CancelTable();

  constructor(
    private readonly catalogue: Catalogue,
    private readonly logger: Logger,
    /** Seals a 2026-07-28 requestState (with a key every replica shares, where there is one). */
    sealer: StateSealer,
    /**
     * Step-up under 2026-07-28, where it is on: which scopes a caller lacks for a tool, and the
     * HTTP answer (403 insufficient_scope) once the client is to step up.
     */
    private readonly stepUp?: ScopeGate & { refuse(res: ServerResponse, scopes: readonly string[]): void },
    /**
     * Where a cancel that finds no call here goes, and what the other replicas could not place
     * comes from (REDIS_URL: src/oauth/shared-state.ts); none: a cancel reaches this process only.
     */
    private readonly relay?: CancelRelay,
  ) {
    this.dispatch = new ToolDispatch(catalogue);
    this.modern = new Rev2026(catalogue, SERVER_INFO, sealer, stepUp);
    relay?.listen((hash) => {
      if (CANCEL_HASH.test(hash) && this.cancels.cancelHashed(hash))
        this.logger.info(
          "a call was cancelled by its client through another replica (notifications/cancelled)",
        );
    });
  }

  /** How many servers were built, how many wait in the pool, how many calls the dispatch answered, how many calls can be cancelled now (tests). */
  pool(): { built: number; idle: number; direct: number; cancellable: number } {
    return {
      built: this.built,
      idle: this.idleConnected.length,
      direct: this.dispatch.answered,
      cancellable: this.cancels.count,
    };
  }

  private build(): McpServer {
    this.built++;
    return createMcpServer(this.catalogue);
  }

  private async connected(server = this.build()) {
    const transport = new JsonCallTransport();
    await server.connect(transport);
    return { server, transport };
  }

  /** A server back to the pool, on a fresh JsonCallTransport, once its transport is closed. */
  private pooledAgain(closed: Promise<void>, server: McpServer): void {
    void closed
      .then(() => this.connected(server))
      .then((again) => {
        if (this.idleConnected.length < MAX_IDLE_SERVERS) this.idleConnected.push(again);
      })
      .catch((err: Error) => this.logger.warn({ err: err.message }, "mcp server not pooled again"));
  }

  /**
   * The JSON path's own answers, one entry per JSON-RPC method: each answers a plain request, or
   * answers undefined to leave it to a pooled SDK server (which answers every method, and every
   * error of its own). The one place a method is dispatched; MCP 2026-07-28's (server/discover,
   * subscriptions/listen) belong here.
   */
  private readonly methods: Record<string, MethodHandler> = {
    "tools/call": async (plain, ctx) => {
      if (!("simple" in plain)) return undefined;
      // the call's signal aborts if its caller goes away before the answer (not after it: an
      // abort builds an exception object, a cost per call otherwise)
      const gone = new CallerGone(ctx.res, this.cancels, ctx.caller, ctx.headers, plain.simple.id);
      const answer = await this.dispatch.call(plain.simple, {
        authInfo: ctx.caller,
        get signal() {
          return gone.signal;
        },
        view: viewOf(ctx.headers),
      });
      gone.answered();
      return answer;
    },
  };

  /** One plain request, its answer written as one JSON body. */
  async answerPlain(
    plain: PlainCall,
    headers: IncomingHttpHeaders,
    res: ServerResponse,
    info: Caller | undefined,
  ): Promise<void> {
    try {
      const method = "simple" in plain ? "tools/call" : plain.request.method;
      const own = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
      if (own) {
        const version = headers["mcp-protocol-version"];
        const ctx = {
          caller: info,
          headers,
          res,
          protocolVersion: typeof version === "string" ? version : undefined,
        };
        const answer = await own(plain, ctx);
        if (answer !== undefined) return void written(res, answer);
      }
      const call = requestOf(plain);
      const entry = this.idleConnected.pop() ?? (await this.connected());
      let answered = false;
      // a call can be cancelled by its caller: its response then ends unanswered, and closes
      const leave =
        call.method === "tools/call"
          ? this.cancels.add(callKey(info, headers, call.id), () => endUnanswered(res))
          : undefined;
      // the caller went away: closing the transport aborts the call (its late answer goes to
      // that closed transport, which drops it), and the server, connected to a fresh one, goes
      // back to the pool: building a server costs milliseconds of the event loop, which a
      // wave of callers timing out would otherwise pay once each (the SDK keeps an aborted
      // call apart from a later one with the same id, bench/results/forge-mcp-profile.md)
      res.once("close", () => {
        leave?.();
        if (!answered) this.pooledAgain(entry.server.close(), entry.server);
      });
      const answer = await entry.transport.call(call, {
        authInfo: info as never,
        requestInfo: { headers },
      });
      answered = true;
      leave?.();
      if (answer === undefined) return;
      if (this.idleConnected.length < MAX_IDLE_SERVERS) this.idleConnected.push(entry);
      written(res, answer);
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, "mcp request failed");
      if (!res.headersSent) {
        const text = JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32603, message: "Internal error" },
          id: null,
        });
        res.writeHead(500, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      }
    }
  }

  /**
   * A request of MCP 2026-07-28 (src/mcp/rev2026.ts; its headers and envelope checked), answered
   * by forge-mcp's own layer: one JSON body, or for subscriptions/listen an event stream that
   * stays open until the client goes away.
   */
  async answerModern(
    request: ModernRequest,
    headers: IncomingHttpHeaders,
    res: ServerResponse,
    caller: Caller | undefined,
  ): Promise<void> {
    if (request.method === "subscriptions/listen") return this.listen(request, res, caller);
    const gone = new CallerGone(res, this.cancels, caller, headers, request.id);
    try {
      const answer = await this.modern.answer(request, {
        caller,
        view: viewOf(headers),
        get signal() {
          return gone.signal;
        },
        listChanged: (c) => this.listeners.listChanged(c),
      });
      if ("stepUp" in answer) return this.stepUp?.refuse(res, answer.stepUp);
      // 2026-07-28 over HTTP: a method the server does not have is a 404 as well
      written(res, answer, "error" in answer && answer.error.code === -32601 ? 404 : 200);
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, "mcp request failed");
      refuse(res, 500, {
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32603, message: "Internal error" },
      });
    } finally {
      gone.answered();
    }
  }

  private listen(request: ModernRequest, res: ServerResponse, caller: Caller | undefined): void {
    const event = (m: unknown) => {
      if (!res.destroyed) res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
    };
    let started = false;
    const opened = this.listeners.open(request, caller, (m) => {
      if (!started) {
        started = true;
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
        });
        res.flushHeaders();
      }
      event(m);
    });
    if (typeof opened !== "function") {
      refuse(res, 200, opened);
      return;
    }
    const keepAlive = setInterval(() => {
      if (!res.destroyed) res.write(": keep-alive\n\n");
    }, LISTEN_KEEPALIVE_MS);
    keepAlive.unref();
    // the server stops: the listen ends gracefully (its result), and its connection with it
    const end = () => {
      event({
        jsonrpc: "2.0",
        id: request.id,
        result: { resultType: "complete", _meta: { [SUBSCRIPTION_KEY]: request.id } },
      });
      res.end(() => res.socket?.destroy());
    };
    this.open.add(end);
    res.once("close", () => {
      clearInterval(keepAlive);
      this.open.delete(end);
      opened();
    });
  }

  /**
   * A notifications/cancelled from `caller` (the request's verified credential), of either
   * revision: the call it names stops, if it is this caller's, in the same session, running in
   * this process, or (with a relay) in another replica, when none runs under its key here. False
   * for any other message; true when it was one (whatever it reached), for the caller to accept
   * (202) without waiting for the relay. initialize is never in the table, so never cancelled.
   */
  cancel(message: unknown, headers: IncomingHttpHeaders, caller: Caller | undefined): boolean {
    const notice = cancelNotice(message);
    if (!notice) return false;
    const key = callKey(caller, headers, notice.requestId);
    if (this.cancels.cancel(key))
      this.logger.info(
        { reason: notice.reason?.slice(0, 200) },
        "a call was cancelled by its client (notifications/cancelled)",
      );
    // two calls here under the key: the cancel is ambiguous here, so it is not sent on either
    else if (this.relay && !this.cancels.holds(key)) this.relay.publish(cancelHash(key));
    return true;
  }

  /** Ends every open listen stream (the server stops): nothing else of this layer holds a connection. */
  close(): void {
    for (const end of [...this.open]) end();
  }

  /**
   * Any other POST, through the SDK's transport on a pooled server: `json` false when the answer
   * may need an event stream (a tool that notifies or asks its client while it runs). Throws what
   * the SDK throws, for the caller to answer.
   */
  async answerStream(
    req: IncomingMessage & { auth?: Caller | undefined },
    res: ServerResponse,
    body: unknown,
    json: boolean,
  ): Promise<void> {
    const unknown = unknownToolAnswer(this.catalogue, body);
    if (unknown) return written(res, unknown);
    const entry = this.idleConnected.pop();
    const server = entry?.server ?? this.build();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    });
    // a call on an event stream, cancelled: closing the transport aborts its handler (the SDK
    // then sends no answer) and ends the stream
    const id = json ? undefined : toolCallId(body);
    const leave =
      id === undefined
        ? undefined
        : this.cancels.add(callKey(req.auth, req.headers, id), () => void transport.close());
    res.on("close", () => {
      leave?.();
      this.pooledAgain(transport.close(), server);
    });
    // a throw here is the route's to answer (its 500); off its JsonCallTransport first
    if (entry) await entry.transport.close();
    await server.connect(transport);
    await transport.handleRequest(req as never, res, body);
  }
}

/** The id of a body that is one tools/call request, or undefined. */
function toolCallId(body: unknown): string | number | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return method === "tools/call" && (typeof id === "string" || typeof id === "number") ? id : undefined;
}

/** A refusal of the checks before a method runs (or an error of the layer), as one JSON body. */
export function refuse(res: ServerResponse, status: number, answer: ErrorAnswer): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(answer);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** A JSON-path answer, unless the caller went away or something answered already. */
function written(res: ServerResponse, answer: unknown, status = 200): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(answer);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
