// `agents playground`: a web page over the library on 127.0.0.1. It shows the graph of
// agents.yaml, its validation findings (live, as the file changes) and, on request, a plan.
// It talks to applied agents (chat.ts) and applies the plan it shows only with --allow-apply
// (apply.ts). Every request must carry the per-start token (in the first URL, then in an
// HttpOnly SameSite=Strict cookie), a Host naming this loopback listener (DNS rebinding), and, when
// the browser sends one, an Origin of the same; every response carries a strict CSP. No secret
// reaches a page or an API response: spec values are masked, plan text is redacted.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, type FSWatcher, readFileSync, watch } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, dirname, join, resolve } from "node:path";
import { formatDiagnostic, loadConfig, redactor } from "../../index.js";
import { projectGraph } from "../graph/model.js";
import { ApplyRefused, PlaygroundPlans } from "./apply.js";
import { ChatError, PlaygroundChat } from "./chat.js";
import { CSS, PAGE } from "./page.js";

export interface PlaygroundOptions {
  file: string;
  /** 0 (default): a free port. */
  port?: number;
  env?: NodeJS.ProcessEnv;
  /** The bundled page script; default: dist/playground.js, found next to the running CLI. */
  script?: string;
  /** `--allow-apply`: the page may apply the plan it shows. */
  allowApply?: boolean;
}

export interface Playground {
  /** The URL to open, token included. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const COOKIE = "agents_playground";
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Field names whose values are masked even when written literally (not through `${VAR}`). */
const SECRET_FIELD = /(secret|token|password|api_key|private_key|authorization)/i;
export const MASK = "[redacted]";

/**
 * dist/playground.js, next to the running bundle (dist/agents.cjs, which is run with its
 * __filename) or two folders up from dist/cli/playground/server.js. Tests pass the script.
 */
function findScript(): string {
  const here = typeof __filename === "string" ? dirname(__filename) : process.cwd();
  for (const candidate of [join(here, "playground.js"), join(here, "../../playground.js")])
    if (existsSync(candidate)) return readFileSync(candidate, "utf8");
  throw new Error("the playground page is not built (run npm run build)");
}

/** Values of the spec, with every secret masked: `${VAR}` values and secret-named fields. */
function masked(value: unknown, redact: (text: string) => string, key = ""): unknown {
  if (typeof value === "string") return SECRET_FIELD.test(key) ? MASK : redact(value);
  if (Array.isArray(value)) return value.map((item) => masked(item, redact, key));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, redact, k)]));
  return value;
}

/**
 * The resource a finding is about: the declaration its path names (`agents.helper...`), else the
 * last declaration that starts at or above its line in the same file.
 */
function findingNode(
  d: { file: string; line: number; path?: (string | number)[] },
  file: string,
  nodes: { id: string; kind: string; name: string; line: number }[],
): string | null {
  const [kind, name] = d.path ?? [];
  const named = nodes.find((n) => n.kind === kind && n.name === name);
  if (named) return named.id;
  if (d.file !== file) return null;
  let best: { id: string; line: number } | undefined;
  for (const n of nodes) if (n.line <= d.line && (!best || n.line > best.line)) best = n;
  return best?.id ?? null;
}

async function graphDocument(file: string, env: NodeJS.ProcessEnv) {
  const result = await loadConfig(file, { env });
  const redact = redactor(result.secretValues);
  const graph = projectGraph(result);
  const findings = result.diagnostics.map((d) => {
    const lineText = d.file === result.file ? result.source?.lineText(d.line) : undefined;
    return {
      severity: d.severity,
      code: d.code,
      message: redact(d.message),
      at: `${d.file}:${d.line}:${d.col}`,
      line: d.line,
      col: d.col,
      lineText: lineText === undefined ? null : redact(lineText),
      hint: d.hint === undefined ? null : redact(d.hint),
      node: graph ? findingNode(d, result.file, graph.nodes) : null,
      text: redact(formatDiagnostic(d, lineText)),
    };
  });
  if (!graph)
    return { file: result.file, findings, valid: false, providers: [], nodes: [], edges: [], svg: "" };
  const specs = new Map(result.graph?.nodes.map((n) => [n.address, n.spec]));
  return {
    file: result.file,
    findings,
    valid: true,
    providers: graph.providers,
    nodes: graph.nodes.map((node) => ({
      ...node,
      source: `${result.file}:${node.line}:${node.col}`,
      fields: masked(specs.get(node.id), redact),
    })),
    edges: graph.edges,
  };
}

/** The JSON body of a page request (small: a message, an id); anything else is a 400. */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 1_000_000) throw new ChatError(413, "the request is too large");
  }
  if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
    throw new ChatError(415, "send application/json");
  try {
    const body = JSON.parse(text) as unknown;
    if (body !== null && typeof body === "object" && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {}
  throw new ChatError(400, "the body is not a JSON object");
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieOf(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === COOKIE) return rest.join("=");
  }
  return undefined;
}

export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const file = resolve(options.file);
  const env = options.env ?? process.env;
  const script = options.script ?? findScript();
  const token = randomBytes(24).toString("base64url");
  const clients = new Set<ServerResponse>();
  let port = 0;

  const send = (
    res: ServerResponse,
    status: number,
    type: string,
    body: string,
    extra: Record<string, string> = {},
  ) => {
    res.writeHead(status, {
      "content-type": type,
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
      ...extra,
    });
    res.end(body);
  };
  const json = (res: ServerResponse, status: number, body: unknown) =>
    send(res, status, "application/json; charset=utf-8", JSON.stringify(body));
  const plans = new PlaygroundPlans(file, env, options.allowApply === true);
  const chat = new PlaygroundChat(file, env);
  /**
   * A streamed answer: one JSON object per line, written as it happens (the page reads it with
   * fetch). A refusal thrown before the first line is still a plain status and message.
   */
  const stream = async (res: ServerResponse, body: (write: (line: unknown) => void) => Promise<void>) => {
    const open = () => {
      if (!res.headersSent)
        res.writeHead(200, {
          "content-type": "application/x-ndjson; charset=utf-8",
          "content-security-policy": CSP,
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
          "cache-control": "no-store",
        });
    };
    await body((line) => {
      open();
      if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(line)}\n`);
    });
    open();
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    if (!hosts.includes(req.headers.host ?? "")) return send(res, 421, "text/plain", "wrong Host\n");
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.some((h) => origin === `http://${h}`))
      return send(res, 403, "text/plain", "wrong Origin\n");
    const url = new URL(req.url ?? "/", `http://${hosts[0]}`);
    const given = url.searchParams.get("token");
    if (url.pathname === "/" && given !== null) {
      if (!same(given, token)) return send(res, 403, "text/plain", "wrong token\n");
      // The token leaves the address bar: it lives on in the cookie only.
      return send(res, 303, "text/plain", "", {
        location: "/",
        "set-cookie": `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      });
    }
    const cookie = cookieOf(req);
    if (cookie === undefined || !same(cookie, token))
      return send(res, 403, "text/plain", "wrong or missing token\n");
    const route = `${req.method} ${url.pathname}`;
    if (route === "GET /") return send(res, 200, "text/html; charset=utf-8", PAGE);
    if (route === "GET /app.js") return send(res, 200, "text/javascript; charset=utf-8", script);
    if (route === "GET /app.css") return send(res, 200, "text/css; charset=utf-8", CSS);
    if (route === "GET /api/graph") return json(res, 200, await graphDocument(file, env));
    if (route === "GET /api/resource")
      return json(res, 200, await chat.resource(url.searchParams.get("address") ?? "", masked));
    if (route === "POST /api/plan") {
      try {
        return json(res, 200, await plans.plan());
      } catch (error) {
        return json(res, 422, { error: await plans.redactNow((error as Error).message) });
      }
    }
    if (route === "POST /api/apply") {
      const body = await readJson(req);
      return stream(res, (write) => plans.apply(String(body.plan ?? ""), write));
    }
    if (route === "GET /api/agents") {
      try {
        return json(res, 200, { agents: await chat.agents() });
      } catch (error) {
        return json(res, 200, { agents: [], error: await plans.redactNow((error as Error).message) });
      }
    }
    if (route === "POST /api/sessions") {
      const body = await readJson(req);
      return json(res, 201, await chat.start(String(body.agent ?? "")));
    }
    const session = /^\/api\/sessions\/([A-Za-z0-9_-]+)\/(messages|confirm|interrupt|events\.jsonl)$/.exec(
      url.pathname,
    );
    if (session) {
      const [, id, what] = session as unknown as [string, string, string];
      if (req.method === "POST" && what === "messages") {
        const body = await readJson(req);
        const text = String(body.text ?? "");
        if (!text.trim()) return json(res, 400, { error: "the message is empty" });
        const gone = new AbortController();
        res.on("close", () => gone.abort());
        return stream(res, (write) => chat.turn(id, text, write, gone.signal));
      }
      if (req.method === "POST" && what === "confirm") {
        const body = await readJson(req);
        chat.confirm(id, String(body.tool_id ?? ""), String(body.result ?? ""));
        return json(res, 200, { ok: true });
      }
      if (req.method === "POST" && what === "interrupt") {
        await readJson(req);
        await chat.interrupt(id);
        return json(res, 200, { ok: true });
      }
      if (req.method === "GET" && what === "events.jsonl")
        return send(res, 200, "application/x-ndjson; charset=utf-8", await chat.history(id), {
          "content-disposition": `attachment; filename="session-${id}.jsonl"`,
        });
    }
    if (route === "GET /api/events") {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-store",
        "content-security-policy": CSP,
      });
      res.write(": connected\n\n");
      clients.add(res);
      req.on("close", () => clients.delete(res));
      return;
    }
    return send(res, 404, "text/plain", "not found\n");
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(async (error: unknown) => {
      // Refusals and engine errors are said in one line, redacted; nothing else leaves the server.
      const status = error instanceof ChatError || error instanceof ApplyRefused ? error.status : 422;
      const message = error instanceof Error ? await plans.redactNow(error.message) : "internal error";
      if (!res.headersSent) json(res, status, { error: message });
      else if (!res.writableEnded) res.end(`${JSON.stringify({ type: "error", error: message })}\n`);
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, "127.0.0.1", ok);
  });
  port = (server.address() as AddressInfo).port;

  // Editors often replace the file (write a new one, rename): watch the folder, not the inode.
  let timer: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file) && name !== ".env") return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const client of clients) client.write("event: change\ndata: {}\n\n");
    }, 50);
  });

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      clearTimeout(timer);
      watcher.close();
      chat.close();
      for (const client of clients) client.end();
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      // A browser keeps idle connections open (and a chat may be streaming): cut them.
      server.closeAllConnections();
      await closed;
    },
  };
}
