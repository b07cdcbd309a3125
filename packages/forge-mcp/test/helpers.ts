import { Agent, createServer as createHttpServer, get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { loadConfig } from "../src/config.js";
import { createLogger } from "../src/logger.js";
import { createServer, type ForgeMcpServer } from "../src/server.js";

export const SECRET = Buffer.alloc(32, 7).toString("base64");
export const OTHER_SECRET = Buffer.alloc(32, 9).toString("base64");

/** The three sign-in modes the official-client flows run in: name and the env that selects it. */
export const SIGN_IN_MODES: Array<[string, Record<string, string>]> = [
  ["passthrough", {}],
  ["proxy", { FORGE_OAUTH_CALLBACK_PROXY: "true" }],
  [
    "stateless proxy",
    { FORGE_OAUTH_CALLBACK_PROXY: "true", OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
  ],
];

export interface RunningForgeMcp {
  url: string;
  /** The HTTP server in front of the handler (its connections, for what the server read). */
  http: Server;
  server: ForgeMcpServer;
  logs: string[];
  close(): Promise<void>;
}

/** Starts forge-mcp on an ephemeral loopback port; MCP_SERVER_URL is the port it got. */
export async function startForgeMcp(
  env: Record<string, string>,
  opts: {
    now?: () => number /** a path prefix of MCP_SERVER_URL, e.g. "/gitlab" */;
    prefix?: string;
    clientMetadataForTests?: { ca?: string; timeoutMs?: number };
    /** false: no /mcp lane, every request through Express (src/mcp-lane.ts; the lane tests compare). */
    lane?: boolean;
  } = {},
): Promise<RunningForgeMcp> {
  const http: Server = createHttpServer();
  // Past any client's own idle limit: a test process whose event loop is held for seconds (an
  // official client compiling every outputSchema at tools/list) would otherwise see the server
  // close an idle socket just as the client reuses it (ECONNRESET). close() drops them all.
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const config = loadConfig({ MCP_SERVER_URL: url + (opts.prefix ?? ""), MCP_TRANSPORT: "http", ...env });
  const server = await createServer(config, {
    logger: createLogger("debug", sink),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.clientMetadataForTests ? { clientMetadataForTests: opts.clientMetadataForTests } : {}),
    ...(opts.lane === false ? { lane: false } : {}),
  });
  http.on("request", server.handler);
  return {
    url,
    http,
    server,
    logs,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
    },
  };
}

/** A settable clock for expiry rules. */
export function testClock(start = Date.now()) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

export async function register(
  base: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

export async function postForm(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
    redirect: "manual",
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

export async function getManual(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { redirect: "manual", headers });
  return {
    status: res.status,
    location: res.headers.get("location"),
    headers: res.headers,
    text: await res.text(),
  };
}

/**
 * `count` GETs, `request(i)` giving each one's URL and headers, eight at a time on kept-alive
 * connections: their statuses and Location headers (the store-capacity rows' floods of /authorize).
 * A thousand through fetch one after another cost three times the CPU and wall time.
 */
export async function floodGets(
  count: number,
  request: (i: number) => [string, Record<string, string>],
): Promise<Array<{ status: number; location: string | null }>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const get = (url: string, headers: Record<string, string>) =>
    new Promise<{ status: number; location: string | null }>((resolve, reject) => {
      const req = httpGet(url, { agent, headers }, (res) => {
        res.resume();
        res.once("end", () => resolve({ status: res.statusCode!, location: res.headers.location ?? null }));
      });
      req.once("error", reject);
    });
  const answers: Array<{ status: number; location: string | null }> = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          const i = next++;
          answers[i] = await get(...request(i));
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return answers;
}

/** A loopback port that was free a moment ago (for servers that cannot bind port 0 themselves). */
export async function freePort(): Promise<number> {
  const s = createHttpServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/**
 * tools/list as a plain JSON-RPC POST to /mcp (2025-11-25, no session): the listed tools, as one
 * page. The official v1 client compiles every listed tool's outputSchema each time it lists, which
 * costs more than the list itself with every toolset; rows that read names, annotations or input
 * schemas list this way (tools/table.test.ts lists every tool through the official client).
 */
export async function postToolsList(
  url: string,
): Promise<Array<{ name: string; inputSchema: unknown; annotations?: Record<string, unknown> }>> {
  const r = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  if (r.status !== 200) throw new Error(`tools/list answered ${r.status}`);
  const body = (await r.json()) as {
    result: {
      tools: Array<{ name: string; inputSchema: unknown; annotations?: Record<string, unknown> }>;
      nextCursor?: string;
    };
  };
  if (body.result.nextCursor !== undefined) throw new Error("tools/list answered more than one page");
  return body.result.tools;
}

/**
 * One tools/call as a plain JSON-RPC POST to /mcp (no SDK client: nothing compiled, no
 * initialize), with the request's own headers (a 2025 revision unless they name one) and `_meta`.
 */
export async function postToolCall(
  mcp: RunningForgeMcp,
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
  meta: Record<string, unknown> = {},
): Promise<{ status: number; body: { result?: any; error?: { message: string } } }> {
  const r = await fetch(`${mcp.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, _meta: meta },
    }),
  });
  return { status: r.status, body: (await r.json()) as { result?: any; error?: { message: string } } };
}
