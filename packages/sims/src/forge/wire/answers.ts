import type { Request, Response } from "express";

/** The REST root, and the error answers GitLab's API gives, in its own words. */
export const API = "/api/v4";

export function unauthorized(res: Response): void {
  res.status(401).json({ message: "401 Unauthorized" });
}

export function forbidden(res: Response, message = "403 Forbidden"): void {
  res.status(403).json({ message });
}

/**
 * `404 Project Not Found`, `404 File Not Found`, ... for GitLab's named lookups; without a resource,
 * the text GitLab's API gives any record it cannot find by id or iid: `404 Not found` (lower-case f).
 */
export function notFound(res: Response, resource?: string): void {
  res.status(404).json({ message: resource ? `404 ${resource} Not Found` : "404 Not found" });
}

/** Grape's parameter validation failure: `{"error":"title is missing"}`. */
export function missing(res: Response, ...names: string[]): void {
  res.status(400).json({ error: names.map((n) => `${n} is missing`).join(", ") });
}

/**
 * A text answered whole (200) or, for one `Range: bytes=…` range, in part: 206 with Content-Range,
 * or 416 with `Content-Range: bytes *\/size` when the range starts past the end. Several ranges or
 * another unit are answered whole, as HTTP allows.
 */
export function sendRanged(req: Request, res: Response, text: string, type = "text/plain"): void {
  const body = Buffer.from(text, "utf8");
  const size = body.length;
  res.setHeader("accept-ranges", "bytes");
  const m = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? "").trim());
  if (!m || (m[1] === "" && m[2] === "")) return void res.status(200).type(type).send(body);
  let start: number;
  let end: number;
  if (m[1] === "") {
    // a suffix range: the last n bytes
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || end < start) {
    res.setHeader("content-range", `bytes */${size}`);
    return void res.status(416).json({ message: "416 Range Not Satisfiable" });
  }
  res.setHeader("content-range", `bytes ${start}-${end}/${size}`);
  res
    .status(206)
    .type(type)
    .send(body.subarray(start, end + 1));
}
