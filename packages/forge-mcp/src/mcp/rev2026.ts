import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import {
  type CallContext,
  type Caller,
  type Catalogue,
  type ClientView,
  declaresFormElicitation,
  type ElicitAnswer,
  InputRequired,
  type Peer,
} from "./catalogue.js";
import { withoutPrefix } from "./client-view.js";
import { parseArguments, runTool, toolList } from "./sdk-server.js";

/**
 * MCP 2026-07-28, answered by forge-mcp's own layer (docs/forge-mcp.md, "Which MCP revisions are
 * served"): no initialize and no session; every request names its revision and its client's
 * capabilities in `params._meta`; `server/discover`; `resultType` on every result; `ttlMs` and
 * `cacheScope` on tools/list; a destructive tool's confirmation as an `input_required` result whose
 * `requestState` is sealed to the caller's token and expires; `Mcp-Method`/`Mcp-Name` headers
 * checked against the body on HTTP. A request is of this revision when its `_meta` claims it
 * (`classify`); anything else is a 2025 request and goes where it went before.
 *
 * The wire facts (codes, shapes, header rules) are those of the specification's 2026-07-28
 * revision as the official v2 packages (@modelcontextprotocol/server and core 2.4.0) implement it.
 */

export const REV_2026 = "2026-07-28";
/** What server/discover names: this revision first, then every 2025 one the SDK's server speaks. */
export const SERVED_VERSIONS: readonly string[] = [REV_2026, ...SUPPORTED_PROTOCOL_VERSIONS];

export const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
export const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
export const SUBSCRIPTION_KEY = "io.modelcontextprotocol/subscriptionId";

/** The revision's error codes (beside JSON-RPC's own). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_VERSION = -32022;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

/** A revision of 2026-07-28 or later (a date at or after it). */
export function isModernVersion(v: unknown): v is string {
  return typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) && v >= REV_2026;
}

type Id = string | number;
type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A request of 2026-07-28, its envelope checked. */
export interface ModernRequest {
  id: Id;
  method: string;
  params: Json;
  capabilities: Json;
}

export type ErrorAnswer = {
  jsonrpc: "2.0";
  id: Id | null;
  error: { code: number; message: string; data?: unknown };
};
export type Answer = { jsonrpc: "2.0"; id: Id; result: Json } | ErrorAnswer;

/** What a body is: a 2025 message (or batch), a 2026-07-28 request or notification, or refused. */
export type Classified =
  | { era: "legacy" }
  | { era: "modern"; request: ModernRequest }
  | { era: "modern-notification" }
  | { era: "refused"; status: number; answer: ErrorAnswer };

export const errorAnswer = (id: Id | null, code: number, message: string, data?: unknown): ErrorAnswer => ({
  jsonrpc: "2.0",
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

const refused = (id: Id | null, code: number, message: string, data?: unknown): Classified => ({
  era: "refused",
  status: 400,
  answer: errorAnswer(id, code, message, data),
});

const metaOf = (params: unknown): Json | undefined =>
  isRecord(params) && isRecord(params._meta) ? params._meta : undefined;

/** The JSON-RPC id a refusal may echo. */
const idOf = (m: Json): Id | null =>
  typeof m.id === "string" || (typeof m.id === "number" && Number.isInteger(m.id)) ? (m.id as Id) : null;

/** An `Mcp-Name` value: as sent, or the `=?base64?…?=` form decoded (undefined if malformed). */
function decodeName(raw: string): string | undefined {
  const v = raw.trim();
  if (!(v.startsWith("=?base64?") && v.endsWith("?="))) return v;
  const b64 = v.slice(9, -2);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return undefined;
  return Buffer.from(b64, "base64").toString("utf8");
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return typeof v === "string" ? v : undefined;
};

/**
 * Which revision a body is of, and whether its headers agree (`headers` undefined: stdio, which
 * has none). The body decides (a proxy dropping a header does not change it): a request whose
 * `_meta` carries the protocol-version key is of the revision it names; any other is a 2025
 * request, unless its MCP-Protocol-Version header names 2026-07-28 or later (then its envelope is
 * missing). A 2026 request over HTTP must also carry MCP-Protocol-Version equal to its envelope,
 * Mcp-Method equal to its method, and for tools/call Mcp-Name equal to the tool's name.
 */
export function classify(body: unknown, headers: IncomingHttpHeaders | undefined): Classified {
  if (Array.isArray(body)) {
    // 2026-07-28 has no batching: an array with an element of it is refused whole
    for (const m of body)
      if (metaOf(isRecord(m) ? m.params : undefined)?.[VERSION_KEY] !== undefined)
        return refused(
          null,
          INVALID_REQUEST,
          "Invalid Request: protocol revision 2026-07-28 has no batching",
        );
    return { era: "legacy" };
  }
  if (!isRecord(body) || typeof body.method !== "string") return { era: "legacy" };
  const method = body.method;
  const id = idOf(body);
  const meta = metaOf(body.params);
  const headerVersion = headers && header(headers, "mcp-protocol-version");
  const methodHeader = headers && header(headers, "mcp-method");
  const isRequest = "id" in body;
  if (meta === undefined || !(VERSION_KEY in meta)) {
    if (!isModernVersion(headerVersion)) return { era: "legacy" };
    if (method === "initialize")
      return refused(
        id,
        HEADER_MISMATCH,
        "Bad Request: initialize (the 2025 handshake) sent with MCP-Protocol-Version " + headerVersion,
      );
    if (!isRequest) return { era: "modern-notification" };
    return refused(
      id,
      INVALID_PARAMS,
      `Invalid params: MCP-Protocol-Version names ${headerVersion}, but params._meta has no ${VERSION_KEY}`,
    );
  }
  const claimed = meta[VERSION_KEY];
  if (typeof claimed !== "string")
    return refused(id, INVALID_PARAMS, `Invalid params: _meta ${VERSION_KEY} must be a string`);
  // a 2025 revision named in _meta: a 2025 request (which ignores _meta); any other name that is
  // not 2026-07-28 is answered below as a revision this server does not know
  if (SUPPORTED_PROTOCOL_VERSIONS.includes(claimed)) return { era: "legacy" };
  if (headerVersion !== undefined && headerVersion !== claimed)
    return refused(
      id,
      HEADER_MISMATCH,
      `Bad Request: MCP-Protocol-Version ${headerVersion} disagrees with _meta ${VERSION_KEY} ${claimed}`,
    );
  if (methodHeader !== undefined && methodHeader.trim() !== method)
    return refused(
      id,
      HEADER_MISMATCH,
      `Bad Request: Mcp-Method ${methodHeader} disagrees with the body's method ${method}`,
    );
  if (!isRequest) return { era: "modern-notification" };
  if (id === null)
    return refused(null, INVALID_REQUEST, "Invalid Request: the id must be a string or an integer");
  if (claimed !== REV_2026)
    return refused(id, UNSUPPORTED_VERSION, `Unsupported protocol version: ${claimed}`, {
      supported: SERVED_VERSIONS,
      requested: claimed,
    });
  const capabilities = meta[CAPABILITIES_KEY];
  if (!isRecord(capabilities))
    return refused(
      id,
      INVALID_PARAMS,
      `Invalid params: _meta ${CAPABILITIES_KEY} is missing or not an object`,
    );
  if (headers) {
    if (headerVersion === undefined)
      return refused(id, HEADER_MISMATCH, "Bad Request: the MCP-Protocol-Version header is missing");
    if (methodHeader === undefined)
      return refused(id, HEADER_MISMATCH, "Bad Request: the Mcp-Method header is missing");
    const name = (body.params as Json).name;
    if (method === "tools/call" && typeof name === "string") {
      const nameHeader = header(headers, "mcp-name");
      if (nameHeader === undefined)
        return refused(id, HEADER_MISMATCH, "Bad Request: the Mcp-Name header is missing");
      const decoded = decodeName(nameHeader);
      if (decoded === undefined)
        return refused(id, HEADER_MISMATCH, "Bad Request: the Mcp-Name header's base64 value is malformed");
      if (decoded !== name)
        return refused(
          id,
          HEADER_MISMATCH,
          `Bad Request: Mcp-Name ${decoded} disagrees with the body's tool ${name}`,
        );
    }
  }
  return { era: "modern", request: { id, method, params: body.params as Json, capabilities } };
}

/** How long a confirmation's requestState stays valid: long enough for a person to answer. */
export const REQUEST_STATE_TTL_MS = 10 * 60_000;

/** What a requestState carries: whose call it is, and which call. */
export interface RequestState {
  /** sha256 of the caller's token (base64url) */
  who: string;
  tool: string;
  /** sha256 of the arguments' JSON */
  args: string;
  /**
   * "step-up": the state of a step-up question (the call needs a scope the token lacks). Its
   * retry may come with the token the client got by stepping up: it is also bound to `user`.
   */
  kind?: "step-up";
  /** The forge user the token was verified as (a step-up state's principal). */
  user?: string;
}

/**
 * Seals a requestState (authenticated encryption with an expiry) and opens one: undefined for
 * anything not sealed by it, tampered with, or expired. The server's composition gives it
 * (src/oauth/seal.ts's Sealer, under a purpose of its own).
 */
export interface StateSealer {
  seal(state: RequestState, ttlMs: number): string;
  open(token: string): RequestState | undefined;
}

const digest = (s: string) => createHash("sha256").update(s).digest("base64url");

/**
 * The peer of one 2026-07-28 tools/call: it knows the capabilities the request declared, and it
 * asks the client nothing itself. An elicitation is answered from the request's inputResponses
 * when the retry carries one (under a requestState this server sealed for the same caller and
 * call); otherwise it throws InputRequired, which the call answers as an `input_required` result.
 */
function modernPeer(capabilities: Json, responses: Json | undefined): Peer {
  let asked = 0;
  return {
    inline: true,
    clientCapabilities: () => capabilities,
    elicit: (params) => {
      const key = `elicit-${++asked}`;
      const answer = responses?.[key];
      if (isRecord(answer) && typeof answer.action === "string")
        return Promise.resolve(answer as unknown as ElicitAnswer);
      return Promise.reject(new InputRequired({ [key]: { method: "elicitation/create", params } }));
    },
    send: () => Promise.reject(new Error("MCP 2026-07-28 sends no request to the client")),
  };
}

/**
 * Step-up under 2026-07-28 (src/oauth/step-up.ts builds it where FORGE_MCP_STEP_UP is on): which
 * scopes a caller's token lacks for a tool. A call that lacks one is asked in its result, as
 * `input_required` with a form naming the scope (clients that declared form elicitation); once
 * the person agrees, its retry is answered `StepUpNeeded`, which HTTP answers as 403
 * insufficient_scope: the client's authorization layer gets the wider token and sends again.
 */
export interface ScopeGate {
  missing(caller: Caller | undefined, tool: string): readonly string[] | undefined;
}

/** A call that needs the client to step up now: its transport answers 403 insufficient_scope. */
export interface StepUpNeeded {
  stepUp: readonly string[];
}

/** The inputRequests key of a step-up question (a confirmation's are elicit-1, elicit-2, …). */
export const STEP_UP_KEY = "step-up";

/** The step-up question: may the client ask the person for a token with these scopes? */
function stepUpForm(tool: string, scopes: readonly string[]): Json {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `${tool} changes data on the forge, which your sign-in does not allow (it needs the scope ${scopes.join(" ")}). Sign in again with that access? Your client will open the sign-in page; nothing is done until you have.`,
      requestedSchema: { type: "object", properties: {} },
    },
  };
}

const userOf = (caller: Caller | undefined): string | undefined => {
  const u = caller?.extra?.userId;
  return typeof u === "string" || typeof u === "number" ? String(u) : undefined;
};

/** What a 2026 request's answer needs beyond the request: who calls, and the call's own stream. */
export interface ModernContext {
  caller: Caller | undefined;
  /** What the request's headers narrow its tool list to (src/mcp/client-view.ts), over HTTP. */
  view?: ClientView | undefined;
  signal: AbortSignal;
  /** notifications/tools/list_changed a tool raised (discover_tools): for the caller's listeners */
  listChanged(caller: Caller | undefined): void;
}

/**
 * The 2026-07-28 answers for one catalogue: server/discover, tools/list and tools/call (a
 * listen stream is its transport's: see McpHttp and serveStdio). Everything here is per request;
 * a call's state between rounds travels sealed in its requestState.
 */
export class Rev2026 {
  constructor(
    private readonly catalogue: Catalogue,
    private readonly serverInfo: { name: string; version: string },
    private readonly sealer: StateSealer,
    /** Where step-up is on: which scopes a caller lacks for a tool. */
    private readonly scopes?: ScopeGate,
  ) {}

  /** server/discover's result: the same for every caller. */
  discover(): Json {
    return {
      resultType: "complete",
      supportedVersions: SERVED_VERSIONS,
      capabilities: { tools: { listChanged: true } },
      ttlMs: 0,
      cacheScope: "public",
      _meta: { [SERVER_INFO_KEY]: this.serverInfo },
    };
  }

  /**
   * tools/list for this caller, in the catalogue's order (a fixed rank, never the order in which
   * toolsets were loaded), narrowed by the request's view. Private: it depends on the caller.
   * ttlMs 0 where discover_tools can change the list at any call (the client lists again when
   * told, or when it needs to); an hour where the list is fixed for the process's life.
   */
  tools(caller: Caller | undefined, view?: ClientView): Json {
    const { tools } = toolList(this.catalogue, caller, view);
    return {
      resultType: "complete",
      tools,
      ttlMs: this.catalogue.tools.has("discover_tools") ? 0 : 3_600_000,
      cacheScope: "private",
    };
  }

  /** Answers one 2026-07-28 request (subscriptions/listen aside, which its transport serves). */
  async answer(request: ModernRequest, ctx: ModernContext): Promise<Answer | StepUpNeeded> {
    const { id, method } = request;
    if (method === "server/discover") return { jsonrpc: "2.0", id, result: this.discover() };
    if (method === "tools/list") return { jsonrpc: "2.0", id, result: this.tools(ctx.caller, ctx.view) };
    if (method === "tools/call") return this.call(request, ctx);
    return errorAnswer(id, METHOD_NOT_FOUND, `Method not found: ${method}`);
  }

  private async call(request: ModernRequest, ctx: ModernContext): Promise<Answer | StepUpNeeded> {
    const { id } = request;
    // the tool by the catalogue's name (a view's prefix off; Mcp-Name was checked as sent)
    const prefix = ctx.view?.prefix;
    const params = prefix
      ? (withoutPrefix({ method: "tools/call", params: request.params }, prefix) as { params: Json }).params
      : request.params;
    const name = params.name;
    if (typeof name !== "string")
      return errorAnswer(id, INVALID_PARAMS, "Invalid params: name must be a string");
    const t = this.catalogue.tools.get(name);
    if (!t) return errorAnswer(id, INVALID_PARAMS, `Unknown tool: ${name}`);
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isRecord(args))
      return errorAnswer(id, INVALID_PARAMS, "Invalid params: arguments must be an object");
    // whose call this is and which: hashed only where a state is opened or sealed (a plain call
    // needs neither, and two hashes and a stringify are a measurable share of its CPU time)
    let digests: { who: string; args: string } | undefined;
    const ids = () =>
      (digests ??= { who: digest(ctx.caller?.token ?? ""), args: digest(JSON.stringify(args)) });
    let responses: Json | undefined;
    let state: RequestState | undefined;
    if (params.requestState !== undefined || params.inputResponses !== undefined) {
      state = typeof params.requestState === "string" ? this.sealer.open(params.requestState) : undefined;
      // tampered, expired, another caller's, or another call's: the retry is refused. A step-up
      // state also takes a token of the same forge user: stepping up is getting another token.
      const user = userOf(ctx.caller);
      const whose =
        state?.who === ids().who || (state?.kind === "step-up" && user !== undefined && state.user === user);
      if (!state || !whose || state.tool !== name || state.args !== ids().args)
        return errorAnswer(
          id,
          INVALID_PARAMS,
          "Invalid params: requestState is invalid, expired or not this call's",
        );
      if (params.inputResponses !== undefined && !isRecord(params.inputResponses))
        return errorAnswer(id, INVALID_PARAMS, "Invalid params: inputResponses must be an object");
      // a step-up state answers the step-up question only: a confirmation is asked anew
      responses = state.kind === "step-up" ? undefined : (params.inputResponses as Json | undefined);
    }
    const missing = this.scopes?.missing(ctx.caller, name);
    if (missing) {
      const answered = state?.kind === "step-up" ? (params.inputResponses as Json | undefined) : undefined;
      const action = isRecord(answered?.[STEP_UP_KEY]) ? answered[STEP_UP_KEY].action : undefined;
      if (action === "decline" || action === "cancel")
        return complete(id, {
          isError: true,
          content: [
            {
              type: "text",
              text: `${name} was not run: it needs the scope ${missing.join(" ")}, and signing in again with it was declined`,
            },
          ],
        });
      // agreed (or a client that cannot be asked in a form): its authorization layer steps up
      if (action === "accept" || !declaresFormElicitation(request.capabilities)) return { stepUp: missing };
      const user = userOf(ctx.caller);
      const requestState = this.sealer.seal(
        {
          who: ids().who,
          tool: name,
          args: ids().args,
          kind: "step-up",
          ...(user !== undefined && { user }),
        },
        REQUEST_STATE_TTL_MS,
      );
      return {
        jsonrpc: "2.0",
        id,
        result: {
          resultType: "input_required",
          inputRequests: { [STEP_UP_KEY]: stepUpForm(name, missing) },
          requestState,
        },
      };
    }
    const parsed = await parseArguments(t, args);
    if (!parsed.success)
      return complete(id, {
        isError: true,
        content: [
          { type: "text", text: `Invalid arguments for tool ${name}: ${(parsed.error as Error).message}` },
        ],
      });
    let listChanged = false;
    const context: CallContext = {
      authInfo: ctx.caller,
      view: ctx.view,
      requestId: id,
      // read only if the tool reads it (the caller's signal is made on demand)
      get signal() {
        return ctx.signal;
      },
      sendNotification: async (n) => {
        if (n.method === "notifications/tools/list_changed") listChanged = true;
      },
      peer: modernPeer(request.capabilities, responses),
    };
    try {
      const result = await runTool(this.catalogue, t, parsed.data as Json, context);
      if (listChanged) ctx.listChanged(ctx.caller);
      return complete(id, result as unknown as Json);
    } catch (err) {
      if (err instanceof InputRequired) {
        const requestState = this.sealer.seal(
          { who: ids().who, tool: name, args: ids().args },
          REQUEST_STATE_TTL_MS,
        );
        return {
          jsonrpc: "2.0",
          id,
          result: { resultType: "input_required", inputRequests: err.inputRequests, requestState },
        };
      }
      return complete(id, {
        isError: true,
        content: [{ type: "text", text: err instanceof Error ? err.message : String(err) }],
      });
    }
  }
}

const complete = (id: Id, result: Json): Answer => ({
  jsonrpc: "2.0",
  id,
  result: { ...result, resultType: "complete" },
});
