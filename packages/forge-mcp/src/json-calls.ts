import type { IncomingHttpHeaders } from "node:http";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
  type MessageExtraInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The common case of stateless Streamable HTTP, answered without the SDK's HTTP transport: one
 * JSON-RPC request (not initialize) in a POST whose Accept, Content-Type and MCP-Protocol-Version
 * the SDK's transport would accept, answered with one JSON body. The SDK's transport turns every
 * request into a WHATWG Request, its answer into a Response and a stream, and builds and closes a
 * transport per request; per call that was a fifth of forge-mcp's CPU time and most of its
 * garbage (bench/results/forge-mcp-profile.md). Everything else (errors, initialize, batches,
 * notifications, event streams) still goes through the SDK's transport, which answers it as before.
 */

/** The request to answer on the JSON path, or undefined when the SDK's transport must answer it. */
export function plainCall(headers: IncomingHttpHeaders, body: unknown): JSONRPCRequest | undefined {
  const accept = headers.accept;
  // the SDK's own test (Accept is a list: a substring check is what it does)
  if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream"))
    return undefined;
  if (!isJsonContentType(headers["content-type"])) return undefined;
  const version = headers["mcp-protocol-version"];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return undefined;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  if ((body as { method?: unknown }).method === "initialize") return undefined;
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? (parsed.data as JSONRPCRequest) : undefined;
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
