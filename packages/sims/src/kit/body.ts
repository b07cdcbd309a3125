import type { Request } from "express";
import { WireError } from "./errors.js";
import { isObject } from "./records.js";

// provider_a and provider_b refuse a malformed body with the same 400 and the same sentences;
// each renders the WireError in its own envelope.
const invalid = (message: string) => new WireError(400, "", message);

/** The JSON request body as an object; no body reads as `{}`. */
export function body(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  if (b === undefined) return {};
  if (!isObject(b)) throw invalid("request body must be a JSON object");
  return b;
}

/** A string field of a body; null reads as absent, and a required one must not be empty. */
export function str(b: Record<string, unknown>, field: string, required = false): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (required) throw invalid(`${field} is required`);
    return undefined;
  }
  if (typeof v !== "string") throw invalid(`${field} must be a string`);
  if (required && v === "") throw invalid(`${field} must not be empty`);
  return v;
}
