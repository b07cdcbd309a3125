import type { Response } from "express";

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
