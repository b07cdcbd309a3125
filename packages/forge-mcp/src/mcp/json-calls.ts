import type { IncomingHttpHeaders } from "node:http";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
  McpError,
  type MessageExtraInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { type Caller, type Catalogue, type ClientView, NO_PEER } from "./catalogue.js";
import { REV_2026 } from "./rev2026.js";
import { parseArguments, runTool, unknownToolAnswer } from "./sdk-server.js";

/**
 * The common case of stateless Streamable HTTP, answered without the SDK's HTTP transport: one
 * JSON-RPC request (not initialize) in a POST whose Accept, Content-Type and MCP-Protocol-Version
 * the SDK's transport would accept, answered with one JSON body. The SDK's transport turns every
 * request into a WHATWG Request, its answer into a Response and a stream, and builds and closes a
 * transport per request; per call that was a fifth of forge-mcp's CPU time and most of its
 * garbage (bench/results/forge-mcp-profile.md). Everything else (errors, initialize, batches,
 * notifications, event streams) still goes through the SDK's transport, which answers it as before.
 */

/**
 * Whether a POST's headers are ones the SDK's transport would answer with one JSON body: Accept
 * names both JSON and an event stream, the body is JSON, and the protocol version (if given) is
 * one the SDK speaks, or 2026-07-28 (whose requests src/mcp/rev2026.ts answers).
 */
export function plainHeaders(headers: IncomingHttpHeaders): boolean {
  return isJsonContentType(headers["content-type"]) && plainAccept(headers);
}

/** plainHeaders without the Content-Type (the /mcp lane tests a narrower one of its own). */
export function plainAccept(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept;
  // the SDK's own test (Accept is a list: a substring check is what it does)
  if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream"))
    return false;
  const version = headers["mcp-protocol-version"];
  return (
    version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version as string) || version === REV_2026
  );
}

/**
 * A body the JSON path answers (with plainHeaders): one JSON-RPC request, not initialize. A simple
 * tools/call (simpleToolCall) is kept in that form for ToolDispatch; any other request is parsed
 * by the SDK's schema. Undefined when the SDK's transport must answer the body.
 */
export type PlainCall = { simple: SimpleToolCall } | { request: JSONRPCRequest };

export function plainCall(body: unknown): PlainCall | undefined {
  const simple = simpleToolCall(body);
  if (simple) return { simple };
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  if ((body as { method?: unknown }).method === "initialize") return undefined;
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? { request: parsed.data as JSONRPCRequest } : undefined;
}

/** The JSON-RPC request of a plain call, as the SDK's schema parses it (a simple call's is built). */
export function requestOf(call: PlainCall): JSONRPCRequest {
  if ("request" in call) return call.request;
  const { id, name, args } = call.simple;
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: args === undefined ? { name } : { name, arguments: args },
  };
}

/**
 * A transport that stays connected to one pooled McpServer and carries one call at a time: the
 * request goes in through onmessage, its response comes back through send. Messages without the
 * call's id (notifications a tool sends while it runs) are dropped, as the SDK's transport does
 * in its JSON response mode.
 */
export class JsonCallTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private pending: { id: JSONRPCRequest["id"]; answer: (m: JSONRPCMessage | undefined) => void } | undefined;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const p = this.pending;
    if (!p || !("id" in message) || message.id !== p.id || !("result" in message || "error" in message))
      return;
    this.pending = undefined;
    p.answer(message);
  }

  /** Closing aborts the call in flight (the SDK's protocol aborts its handlers); it answers undefined. */
  async close(): Promise<void> {
    const p = this.pending;
    this.pending = undefined;
    this.onclose?.();
    p?.answer(undefined);
  }

  /** Hands the request to the server; resolves with its response (undefined if closed first). */
  call(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCMessage | undefined> {
    if (this.pending) throw new Error("JsonCallTransport carries one call at a time");
    return new Promise((resolve) => {
      this.pending = { id: request.id, answer: resolve };
      this.onmessage?.(request, extra);
    });
  }
}

/** A tools/call in its simplest form: what the JSON path calls directly (ToolDispatch). */
export interface SimpleToolCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The body as a tools/call with nothing but a name and arguments, or undefined. What it takes is
 * a subset of what the SDK's request schemas take (JSONRPCRequestSchema, CallToolRequestSchema),
 * and for it they change nothing: no `_meta`, no task, no other member anywhere.
 */
export function simpleToolCall(body: unknown): SimpleToolCall | undefined {
  if (!isRecord(body)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== "2.0" || method !== "tools/call" || !isRecord(params)) return undefined;
  if (typeof id !== "string" && !Number.isInteger(id)) return undefined;
  for (const k in body)
    if (k !== "jsonrpc" && k !== "id" && k !== "method" && k !== "params") return undefined;
  for (const k in params) if (k !== "name" && k !== "arguments") return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== "string" || (args !== undefined && !isRecord(args))) return undefined;
  return { id: id as string | number, name, args };
}

/** A result of the shape every forge-mcp tool returns: text blocks, perhaps marked as an error, perhaps structured. */
function plainResult(r: unknown): r is CallToolResult {
  if (!isRecord(r) || !Array.isArray(r.content)) return false;
  for (const k in r) if (k !== "content" && k !== "isError" && k !== "structuredContent") return false;
  if (r.isError !== undefined && typeof r.isError !== "boolean") return false;
  // a read tool's structuredContent is an object (CallToolResultSchema asks no more of it)
  if (r.structuredContent !== undefined && !isRecord(r.structuredContent)) return false;
  return r.content.every(
    (c) => isRecord(c) && c.type === "text" && typeof c.text === "string" && Object.keys(c).length === 2,
  );
}

/**
 * Calls a catalogue's tool the way the SDK's McpServer does for a simple call (find it, parse its
 * arguments with its input schema, run its handler, turn a throw into a tool error, check the
 * result against CallToolResultSchema), without the SDK's protocol layer: no transport, no promise
 * chain per message, no parse of the whole request by three zod schemas. Whatever it would have to
 * answer with an error of the SDK's own (arguments its schema refuses) it leaves to the SDK: `call`
 * answers undefined before running anything, and the caller hands the request to a connected
 * server. A tool the catalogue does not have is the JSON-RPC error -32602 (unknownToolAnswer). Handlers are reentrant (the token travels in the context), so one
 * catalogue serves every call.
 */
export class ToolDispatch {
  /** Calls answered here (tests). */
  answered = 0;

  constructor(private readonly catalogue: Catalogue) {}

  async call(
    call: SimpleToolCall,
    extra: { authInfo?: Caller | undefined; signal: AbortSignal; view?: ClientView | undefined },
  ): Promise<JSONRPCMessage | undefined> {
    const t = this.catalogue.tools.get(call.name);
    if (!t)
      return unknownToolAnswer(this.catalogue, {
        id: call.id,
        method: "tools/call",
        params: { name: call.name },
      });
    const parsed = await parseArguments(t, call.args ?? {});
    if (!parsed.success) return undefined;
    this.answered++;
    let result: unknown;
    try {
      result = await runTool(this.catalogue, t, parsed.data as Record<string, unknown>, {
        authInfo: extra.authInfo,
        // read only if the tool reads it (the caller's signal may be made on demand)
        get signal() {
          return extra.signal;
        },
        requestId: call.id,
        // a JSON answer carries no notification, and no request reaches the client before it ends
        sendNotification: async () => {},
        peer: NO_PEER,
        view: extra.view,
      });
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.UrlElicitationRequired)
        return { jsonrpc: "2.0", id: call.id, error: errorOf(err) };
      result = {
        content: [{ type: "text", text: err instanceof Error ? err.message : String(err) }],
        isError: true,
      };
    }
    if (!plainResult(result)) {
      const checked = CallToolResultSchema.safeParse(result);
      if (!checked.success) {
        const err = new McpError(
          ErrorCode.InvalidParams,
          `Invalid tools/call result: ${checked.error.message}`,
        );
        return { jsonrpc: "2.0", id: call.id, error: errorOf(err) };
      }
      result = checked.data;
    }
    return { result: result as CallToolResult, jsonrpc: "2.0", id: call.id };
  }
}

function errorOf(err: McpError): { code: number; message: string; data?: unknown } {
  return { code: err.code, message: err.message, ...(err.data !== undefined && { data: err.data }) };
}
