import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Logger } from "pino";
import { BODY_UNREADABLE } from "./body-limit.js";
import { plainAccept } from "./mcp/json-calls.js";

/**
 * The /mcp lane: a plain tools/call answered without Express, in front of the Express app.
 *
 * Express and its body parser cost a tenth of forge-mcp's CPU per tool call (setting up a request
 * and a response, walking a few dozen routes, content-type and charset parsing, a streaming
 * decoder), and the bench's budget for the whole of forge-mcp is a few tenths of a millisecond
 * (bench/results/forge-mcp-profile.md). The lane takes only the requests whose every check it can
 * settle with the same functions the Express route runs, and hands everything else to the app
 * unchanged. It is narrower than the route, never wider:
 *
 * - before the body: a POST to exactly /mcp (or the prefix's /mcp), with a JSON body of a stated
 *   length within the limit, in UTF-8 and not compressed, headers the SDK's transport would answer
 *   in JSON, a Host and Origin the origin guard lets through, and a caller whose credential is
 *   known without a forge call and is not refused (`admit`). Any of these not so: the app answers,
 *   with the body still unread, so the order "authenticate, then read" holds on both ways.
 * - after the body: a body that is not JSON is refused as the app refuses it (400, generic); any
 *   JSON that `answer` does not take (not one plain call, a step-up refusal, a batch, initialize,
 *   a client's answer to a confirmation) goes to the app with the parsed body, which runs every
 *   check again and answers it as before (the body parser sees the body as read and keeps it).
 *
 * So the lane answers nothing itself except successful plain calls and unreadable bodies; every
 * refusal of a check is still the app's. test/mcp-lane.test.ts sends the same requests (the attack
 * rows of the specs among them) to a server with the lane and to one without, and compares.
 */

/** The JSON body limit of /mcp (the app's `express.json({ limit })` and the lane's). */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

export interface LaneOptions {
  /** MCP_SERVER_URL's path prefix ("" when none): /mcp answers under it and at the root. */
  prefix: string;
  /** Headers every answer of this server carries (nosniff, the replica's name). */
  headers: Record<string, string>;
  /** The origin guard's verdict on a request's headers: undefined when it lets them through. */
  originProblem(headers: IncomingHttpHeaders): string | undefined;
  /**
   * The caller's credential, known at once: its AuthInfo, null when /mcp takes no credential
   * (a server token), undefined when the app must decide (no credential, a refused one, one that
   * costs a forge call).
   */
  admit(req: IncomingMessage): AuthInfo | null | undefined;
  /** Answers a parsed body and returns true, or returns false for the app to answer it. */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, auth: AuthInfo | undefined): boolean;
  /** The Express app: everything the lane does not answer. */
  app: (req: IncomingMessage, res: ServerResponse) => void;
  logger: Logger;
}

// body-parser's JSON types, narrowed: application/json, no parameter but charset=utf-8
const JSON_UTF8 = /^application\/json(\s*;\s*charset=utf-8)?\s*$/i;

/** Whether the lane may read this request's body: every check it can settle before reading. */
function laneHeaders(headers: IncomingHttpHeaders): boolean {
  const length = headers["content-length"];
  if (length === undefined || !/^\d{1,8}$/.test(length) || Number(length) > MCP_BODY_LIMIT) return false;
  if (headers["transfer-encoding"] !== undefined) return false;
  const encoding = headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") return false;
  // narrower than the SDK's JSON test (isJsonContentType), which it therefore implies
  if (!JSON_UTF8.test(headers["content-type"] ?? "")) return false;
  return plainAccept(headers);
}

/** The lane's request listener, with how many requests it answered itself (tests). */
export type Lane = RequestListener & { answered: number };

export function mcpLane(o: LaneOptions): Lane {
  const paths = new Set(o.prefix ? ["/mcp", `${o.prefix}/mcp`] : ["/mcp"]);
  const headerList = Object.entries(o.headers);
  const lane: Lane = Object.assign((req: IncomingMessage, res: ServerResponse) => take(req, res), {
    answered: 0,
  });
  const take = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== "POST" || !paths.has(req.url ?? "") || !laneHeaders(req.headers))
      return void o.app(req, res);
    if (o.originProblem(req.headers) !== undefined) return void o.app(req, res);
    const auth = o.admit(req);
    if (auth === undefined) return void o.app(req, res);
    const chunks: Buffer[] = [];
    // a caller gone before its body was whole: nothing to answer (and no unhandled error)
    req.once("error", () => res.destroy());
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => {
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8");
      // the body parser's decoder drops a byte order mark; JSON.parse would not take one
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      let body: unknown;
      try {
        // the body parser reads an empty body as {} and takes only an object or an array
        body = text.length === 0 ? {} : JSON.parse(text);
        if (typeof body !== "object" || body === null) throw new SyntaxError("not an object or array");
      } catch {
        o.logger.warn(
          { status: 400, type: "entity.parse.failed" },
          "request rejected before reaching a handler",
        );
        lane.answered++;
        const answer = JSON.stringify(BODY_UNREADABLE);
        res.writeHead(400, {
          ...o.headers,
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(answer),
        });
        res.end(answer);
        return;
      }
      for (const [name, value] of headerList) res.setHeader(name, value);
      let taken = false;
      try {
        taken = o.answer(req, res, body, auth ?? undefined);
      } catch (err) {
        // thrown before anything was sent: the app answers it its own way
        o.logger.error({ err: (err as Error).message }, "mcp lane failed");
        if (res.headersSent) return void res.destroy();
      }
      if (taken) return void lane.answered++;
      (req as IncomingMessage & { body?: unknown }).body = body;
      o.app(req, res);
    });
  };
  return lane;
}
