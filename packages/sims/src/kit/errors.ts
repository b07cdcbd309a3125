import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * An error a simulated provider answers on the wire. Handlers throw it; each provider's error
 * middleware renders it in that provider's own body shape.
 */
export class WireError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Provider error class (`invalid_request_error`, ...); providers without one ignore it. */
    readonly kind?: string,
  ) {
    super(message);
  }
}

/** Express 5 forwards rejected promises itself; this only narrows handler types in one place. */
type Handler = (req: Request, res: Response) => unknown;
export function h(fn: Handler): RequestHandler {
  return (req, res, next) => {
    try {
      const out = fn(req, res);
      if (out instanceof Promise) out.catch(next);
    } catch (e) {
      next(e);
    }
  };
}

/**
 * Maps anything thrown in a route to a WireError: body-parser and multipart errors keep their 4xx.
 * An empty code means "the provider's default code for this status".
 */
function toWireError(err: unknown): WireError {
  if (err instanceof WireError) return err;
  const status =
    typeof (err as { status?: unknown })?.status === "number" ? (err as { status: number }).status : 500;
  if (status === 413) return new WireError(400, "", "request body exceeds the size limit");
  if (status < 500) return new WireError(status, "", (err as Error).message || "invalid request");
  return new WireError(500, "", "internal server error");
}

export function errorMiddleware(render: (e: WireError, req: Request) => unknown, quiet = true) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const wire = toWireError(err);
    if (wire.status >= 500 && !quiet) console.error(err);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(wire.status).json(render(wire, req));
  };
}
