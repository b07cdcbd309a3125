import type { z } from "zod";

/**
 * The tool catalogue: forge-mcp's own description of its tools and of who may see and call them,
 * with nothing of the MCP SDK in it. The rest of src/mcp/ turns it into the wire (the SDK's
 * server, or the JSON path's own dispatch); tools/ builds it; nothing else needs the SDK to say
 * what a tool is, what it returns, or whether a caller may use it.
 */

/** One block of a tool's answer: every forge-mcp tool answers in text. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** What a tool's handler returns (MCP's CallToolResult, in the form forge-mcp uses). */
export interface ToolResult {
  content: TextBlock[];
  /** A read tool's answer as an object (validating against its `output`); its text says the same. */
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** MCP's tool annotations, all four always given. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Who calls: the credential the request was authenticated with (none with a server token). */
export interface Caller {
  token: string;
  /** The OAuth client the token was issued to, where the verifier knows it. */
  clientId?: string | undefined;
  /** The scopes the token was verified to hold (OAuth modes). */
  scopes?: readonly string[] | undefined;
  extra?: Record<string, unknown> | undefined;
}

/**
 * What a client asked to see on one request (HTTP headers, src/mcp/client-view.ts): it narrows
 * what the operator serves, never widens it. Undefined members narrow nothing.
 */
export interface ClientView {
  /** Toolsets to show instead of the starting list (names as FORGE_TOOLSETS takes them). */
  toolsets?: readonly string[] | undefined;
  /** Single tools to show, beside `toolsets` (a union, as GitLab and GitHub do). */
  tools?: readonly string[] | undefined;
  /** Tools neither shown nor callable. */
  exclude?: readonly string[] | undefined;
  /** Only readers shown and callable. */
  readOnly?: boolean | undefined;
  /** Put before every tool name tools/list shows (and taken off the names a call sends). */
  prefix?: string | undefined;
}

/** A client's answer to an elicitation (MCP's ElicitResult). */
export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown> | undefined;
}

/**
 * The client at the other end of a call, as a tool may reach it while the call runs. A transport
 * that cannot reach the client (the JSON path) has a peer that knows no capability and refuses.
 */
export interface Peer {
  /**
   * True where the client's answers travel in the request itself (MCP 2026-07-28): `elicit`
   * resolves from the retry's inputResponses, or throws InputRequired to ask for them.
   */
  inline?: boolean;
  /** The capabilities the client declared (at initialize, or in this request), when known. */
  clientCapabilities(): unknown;
  /** Sends the client an elicitation/create on this connection and waits for its answer. */
  elicit(params: Record<string, unknown>): Promise<ElicitAnswer>;
  /** Sends the client a JSON-RPC request on the stream of the request `relatedTo` (no waiting). */
  send(
    message: { jsonrpc: "2.0"; id: string; method: string; params: Record<string, unknown> },
    relatedTo: string | number,
  ): Promise<void>;
}

/** What a tool's handler knows about the request it answers. */
export interface CallContext {
  authInfo?: Caller | undefined;
  requestId: string | number;
  /** Aborted when the request ends before its answer (the caller went away). */
  signal: AbortSignal;
  /** A notification on this request's own stream (dropped where the answer is one JSON body). */
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /** The request's `_meta.progressToken`: the caller wants notifications/progress for it. */
  progressToken?: string | number | undefined;
  peer: Peer;
  /** What the client asked to see on this request (HTTP headers), when it asked. */
  view?: ClientView | undefined;
}

/** One tool, under one name it answers to. */
export interface CatalogueTool {
  name: string;
  /** The toolset it belongs to (FORGE_TOOLSETS, discover_tools). */
  toolset: string;
  description: string;
  /** Its arguments: parsed before the handler runs (members it does not name are dropped). */
  input: z.ZodRawShape;
  annotations: ToolAnnotations;
  /** A read tool's outputSchema (JSON Schema): what its structuredContent holds. */
  output?: Record<string, unknown> | undefined;
  /** The forge request it makes (`GET /projects/:id`), when it makes one. */
  endpoint?: string | undefined;
  /** Runs the tool on parsed arguments; a throw is answered as a tool error with its message. */
  handler(args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult>;
}

/**
 * What a server serves, decided per request. `tools` holds every tool any caller of this server
 * may ever call (each alias as a tool of its own name); `listed` and `refusal` narrow it for one
 * caller (toolsets loaded with discover_tools). Read-only mode, the permission mode and the deny
 * regex leave a tool out of `tools` altogether.
 */
export interface Catalogue {
  readonly tools: ReadonlyMap<string, CatalogueTool>;
  /** tools/list for this caller, in the order it shows them, narrowed by the request's view. */
  listed(caller: Caller | undefined, view?: ClientView): readonly CatalogueTool[];
  /** Why this caller may not call the tool now (answered as a tool error), or undefined. */
  refusal(name: string, caller: Caller | undefined, view?: ClientView): string | undefined;
}

/**
 * Thrown where a call needs its client's input before it can go on, under a revision that asks in
 * the result (MCP 2026-07-28's `input_required`): the requests, keyed by names the retry answers.
 */
export class InputRequired extends Error {
  constructor(readonly inputRequests: Record<string, { method: string; params: Record<string, unknown> }>) {
    super("input required");
  }
}

/** Declares form elicitation: `elicitation: {}` (2025-06-18) or `elicitation: { form: {} }`. */
export function declaresFormElicitation(capabilities: unknown): boolean {
  const e = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (typeof e !== "object" || e === null) return false;
  const modes = Object.keys(e);
  return modes.length === 0 || modes.includes("form");
}

/** A peer that reaches no client: no capability known, every request refused. */
export const NO_PEER: Peer = {
  clientCapabilities: () => undefined,
  elicit: () => Promise.reject(new Error("This call cannot send requests to its client")),
  send: () => Promise.reject(new Error("This call cannot send requests to its client")),
};
