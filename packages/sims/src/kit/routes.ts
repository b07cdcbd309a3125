import type { Request, RequestHandler, Router } from "express";
import { h } from "./errors.js";
import { publicView } from "./records.js";

/** A route whose whole work is its JSON answer: the value `fn` computes from the request. */
export function answer(fn: (req: Request) => unknown): RequestHandler {
  return h((req, res) => {
    res.json(fn(req));
  });
}

/** `GET path`: the public view of the one record `find` reads from the request (a 404 it throws). */
export function getView(r: Router, path: string, find: (req: Request) => object): void {
  r.get(
    path,
    answer((req) => publicView(find(req))),
  );
}
