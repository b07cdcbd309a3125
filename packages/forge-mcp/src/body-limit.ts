import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";

// A request body's limit, enforced before any body parser reads it: /mcp's (4 MiB, server.ts)
// and the OAuth routes' (16 KiB, oauth/routes.ts). Express's body parsers, on a body over their
// limit, read the rest of the request to its end before answering; so does Node once an answer
// is sent with the body unread. Here nothing past the limit is read.

/**
 * How long a refused connection stays open, unread, after the 413: the client gets to read the
 * answer before the connection is cut. Cut earlier, the reset can reach a busy client before it
 * has read the answer, and its kernel then drops the answer (seen at 1 s on a host at load 12);
 * a paused socket costs a descriptor and nothing is read from it meanwhile.
 */
const LINGER_MS = 5000;

/**
 * Hangs up a connection whose request body we will not read: nothing more is read from it, the
 * answer (written or being written) still reaches the client, and the connection is destroyed
 * LINGER_MS later.
 *
 * Node alone gets neither right. Once an answer with `connection: close` is written, its HTTP
 * server destroys the socket at once (`destroySoon`: strace shows the 413 written, shutdown and
 * close within 2 ms); with request bytes still unread, the kernel answers that close with a reset,
 * and a client still sending that has not read the answer yet loses it (its next write fails,
 * EPIPE, and its connection is gone before it reads). And an answer without
 * `connection: close` makes Node read the rest of the body (its dump of an unread request), as
 * does the body parser's own dump after its limit. So: reading stops here, and any later resume
 * (those dumps) is paused again in the same tick, before a byte is read; the socket's
 * `destroySoon` only ends it (the FIN follows the answer, the server's side stays open, unread,
 * since Node's HTTP sockets allow half-open); the timer destroys it.
 */
function hangUp(socket: Socket): void {
  socket.pause();
  socket.on("resume", () => socket.pause());
  socket.destroySoon = () => void socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

/**
 * A route's body limit, ahead of its body parser, which on a body over its limit reads the rest
 * of the request to its end before answering (body-parser's dump), and so does Node once an
 * answer is sent with the body unread: a caller could make us read gigabytes (an authenticated
 * one at /mcp, anyone at the OAuth routes).
 * A declared Content-Length over the limit is refused before a byte is read; a chunked or
 * compressed body is counted as it comes, and refused at the chunk that crosses the limit. Both
 * get the answer the last stop gives an oversized body (413, generic, logged the same way), then
 * nothing more is read from the connection, which is ended after the answer and destroyed
 * LINGER_MS later (`hangUp`). The /mcp lane never reads such a body: it takes only a stated length
 * within the limit, never a chunked body.
 */
export function bodyLimit(limit: number, logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const declared = req.headers["content-length"];
    let received = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      // a reset is not an error worth an unhandled event: the caller is the one we cut off
      req.on("error", () => {});
      hangUp(req.socket);
      // answered already (a handler that did not read the body): only stop reading
      if (res.headersSent) return;
      logger.warn({ status: 413, type: "entity.too.large" }, "request rejected before reaching a handler");
      const text = JSON.stringify(BODY_UNREADABLE);
      res.writeHead(413, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
        connection: "close",
      });
      res.end(text);
    };
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
      refuse();
      return;
    }
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit && !refused) {
        req.off("data", count);
        refuse();
      }
    };
    req.on("data", count);
    req.once("end", () => req.off("data", count));
    next();
  };
}

/** What the app (server.ts's last stop) and the lane answer for a body they cannot read. */
export const BODY_UNREADABLE = {
  error: "invalid_request",
  error_description: "The request body could not be read.",
} as const;
