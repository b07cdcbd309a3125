import http from "node:http";
import type { Express } from "express";

type Constructor = new (...args: any[]) => object;

/**
 * An HTTP server for an Express app whose requests and responses are born with Express's
 * prototypes, instead of being re-parented on every request.
 *
 * Express 5 calls `Object.setPrototypeOf(req, app.request)` (and the same for `res`) in
 * `app.handle` for each request, so that mounted sub-apps can swap in their own prototypes. Changing
 * the prototype of a live object drops V8's fast property access for it and for every function that
 * later touches it (Node's own http code included): on this project's 2-core machine that call alone
 * cost ~110 µs of the ~160 µs Express spent per request (bench/results/sims.md, expressjs/express#5998).
 * Node's `http.createServer` accepts the classes it instantiates, so the objects can be created
 * from subclasses that already carry Express's methods; `app.request`/`app.response` then point at
 * those subclasses' prototypes, which turns Express's `setPrototypeOf` into a no-op (same
 * prototype). The simulators mount no sub-apps (only `express.Router()`s), which is the one feature
 * that relies on the re-parenting.
 */
export function createExpressServer(app: Express): http.Server {
  const Request = subclassWith(http.IncomingMessage, app.request);
  const Response = subclassWith(http.ServerResponse, app.response);
  (app as { request: object }).request = Request.prototype;
  (app as { response: object }).response = Response.prototype;
  return http.createServer(
    {
      IncomingMessage: Request as typeof http.IncomingMessage,
      ServerResponse: Response as unknown as typeof http.ServerResponse,
    },
    app,
  );
}

/** A subclass of `Base` whose prototype holds every property of `expressProto` up to `Base.prototype`. */
function subclassWith(Base: Constructor, expressProto: object): Constructor {
  const Sub = class extends Base {};
  // Copy from the farthest ancestor down, so nearer (app-specific) properties win, as they do on
  // Express's own chain: app.request -> express.request -> http.IncomingMessage.prototype.
  const chain: object[] = [];
  for (let o: object | null = expressProto; o && o !== Base.prototype; o = Object.getPrototypeOf(o)) {
    chain.unshift(o);
  }
  for (const o of chain) Object.defineProperties(Sub.prototype, Object.getOwnPropertyDescriptors(o));
  return Sub;
}
