import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type AnySchema,
  normalizeObjectSchema,
  objectFromShape,
  safeParse,
  safeParseAsync,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { $ZodAsyncError } from "zod/v4/core";
import type {
  CallContext,
  Caller,
  Catalogue,
  CatalogueTool,
  ClientView,
  Peer,
  ToolResult,
} from "./catalogue.js";
import { viewOf } from "./client-view.js";
import { compactSchema, wireAnnotations } from "./compact.js";

/**
 * The SDK's McpServer, speaking the wire for a catalogue: each tool registered under each name it
 * answers to, tools/list answered from the catalogue for the request's caller. The server holds
 * nothing of a caller's (the token travels per request in extra.authInfo), so servers built from
 * one catalogue are interchangeable and can be pooled.
 */

/** The SDK's request `extra`, as much of it as a tool's context reads. */
interface SdkExtra {
  authInfo?: Caller | undefined;
  requestId: string | number;
  signal: AbortSignal;
  sendNotification(n: { method: string; params?: Record<string, unknown> }): Promise<void>;
  requestInfo?: { headers: Record<string, string | string[] | undefined> } | undefined;
  _meta?: { progressToken?: string | number } | undefined;
}

// a tool's input schema as the SDK registers it (an object of its raw shape), built once per tool
const schemas = new WeakMap<CatalogueTool, AnySchema>();
/** The schema a tool's arguments are parsed with, as the SDK's McpServer parses them. */
export function inputSchemaOf(t: CatalogueTool): AnySchema {
  let s = schemas.get(t);
  if (!s) {
    const registered = objectFromShape(t.input as never);
    s = normalizeObjectSchema(registered) ?? registered;
    schemas.set(t, s);
  }
  return s;
}

/**
 * A tool's arguments parsed by its input schema, with the result the SDK's McpServer gets from its
 * asynchronous parse: synchronously where the schema allows it (every forge-mcp tool's does), the
 * asynchronous parse only for a schema with an asynchronous step (which zod refuses to run
 * synchronously). The asynchronous parse costs a promise per field and a microtask hop per call.
 */
export function parseArguments(
  t: CatalogueTool,
  args: unknown,
): ReturnType<typeof safeParse> | Promise<ReturnType<typeof safeParse>> {
  const schema = inputSchemaOf(t);
  try {
    return safeParse(schema, args);
  } catch (err) {
    if (err instanceof $ZodAsyncError) return safeParseAsync(schema, args);
    throw err;
  }
}

/** A tools/list entry, as the SDK's own tools/list writes one for a registered tool. */
function listEntry(t: CatalogueTool) {
  const obj = normalizeObjectSchema(objectFromShape(t.input as never));
  return {
    name: t.name,
    description: t.description,
    inputSchema: obj
      ? compactSchema(toJsonSchemaCompat(obj, { strictUnions: true, pipeStrategy: "input" }))
      : { type: "object" as const, properties: {} },
    ...(t.output ? { outputSchema: t.output } : {}),
    annotations: wireAnnotations(t.annotations),
  };
}

// a tool's entry is the same for every server and every caller: computed once per tool
const entries = new WeakMap<CatalogueTool, ReturnType<typeof listEntry>>();
function entryOf(t: CatalogueTool) {
  let e = entries.get(t);
  if (!e) {
    e = listEntry(t);
    entries.set(t, e);
  }
  return e;
}

/** tools/list's result for one caller, as the request's view asks (its prefix on every name). */
export function toolList(catalogue: Catalogue, caller: Caller | undefined, view?: ClientView) {
  const tools = catalogue.listed(caller, view).map(entryOf);
  const prefix = view?.prefix;
  return { tools: prefix ? tools.map((e) => ({ ...e, name: prefix + e.name })) : tools };
}

/**
 * A tool's call once its arguments are parsed: the catalogue's refusal for this caller, or the
 * handler's answer (the one path both the SDK's server and the JSON path's dispatch take).
 */
export function runTool(
  catalogue: Catalogue,
  t: CatalogueTool,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<ToolResult> {
  const refused = catalogue.refusal(t.name, ctx.authInfo, ctx.view);
  if (refused !== undefined)
    return Promise.resolve({ isError: true, content: [{ type: "text", text: refused }] });
  return t.handler(args, ctx);
}

function peerOf(server: McpServer): Peer {
  return {
    clientCapabilities: () => server.server.getClientCapabilities(),
    elicit: (params) => server.server.elicitInput(params as never),
    send: (message, relatedTo) => {
      const transport = server.server.transport;
      if (!transport) return Promise.reject(new Error("no transport"));
      return transport.send(message, { relatedRequestId: relatedTo });
    },
  };
}

/**
 * A tools/call of a name the catalogue does not have, answered as the JSON-RPC error the MCP
 * specification gives for it (-32602, "Unknown tool"), at every revision: the SDK's McpServer
 * would answer it as a tool result with isError, which tells the model the tool ran and failed.
 * Undefined for any other message (a known tool, a notification, another method, a batch).
 */
export function unknownToolAnswer(catalogue: Catalogue, message: unknown) {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const m = message as { id?: unknown; method?: unknown; params?: { name?: unknown } };
  if (m.method !== "tools/call" || (typeof m.id !== "string" && typeof m.id !== "number")) return undefined;
  const name = m.params?.name;
  if (typeof name === "string" && catalogue.tools.has(name)) return undefined;
  return {
    jsonrpc: "2.0" as const,
    id: m.id,
    error: { code: -32602, message: `Unknown tool: ${typeof name === "string" ? name : "(no name)"}` },
  };
}

/** A fresh McpServer serving the catalogue. */
export function createMcpServer(catalogue: Catalogue, version = "0.1.0"): McpServer {
  const server = new McpServer({ name: "forge-mcp", version });
  const peer = peerOf(server);
  for (const t of catalogue.tools.values())
    server.registerTool(
      t.name,
      { description: t.description, inputSchema: t.input, annotations: t.annotations },
      (args: Record<string, unknown>, extra: SdkExtra) =>
        runTool(catalogue, t, args, {
          authInfo: extra.authInfo,
          requestId: extra.requestId,
          signal: extra.signal,
          sendNotification: (n) => extra.sendNotification(n),
          progressToken: extra._meta?.progressToken,
          peer,
          view: extra.requestInfo && viewOf(extra.requestInfo.headers),
        }) as never,
    );
  // the SDK lists every registered tool; the catalogue decides what this caller sees
  server.server.setRequestHandler(ListToolsRequestSchema, (_req, extra) =>
    toolList(
      catalogue,
      extra.authInfo as Caller | undefined,
      extra.requestInfo && viewOf(extra.requestInfo.headers),
    ),
  );
  return server;
}
