import type { Request } from "express";

/** Grape reads parameters from the query string and the body alike (body wins). */
export function params(req: Request): Record<string, unknown> {
  const body = req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {};
  return { ...(req.query as Record<string, unknown>), ...(body as Record<string, unknown>) };
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
}

/** `labels=a,b` or `labels[]=a&labels[]=b` or a JSON array. */
export function labelsParam(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const parts = Array.isArray(v) ? v.map(String) : String(v).split(",");
  return [...new Set(parts.map((s) => s.trim()).filter(Boolean))];
}

export function idsParam(v: unknown): number[] | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const parts = Array.isArray(v) ? v : String(v).split(",");
  return parts.map(Number).filter((n) => Number.isInteger(n) && n > 0);
}

// Grape coerces Boolean parameters through dry-types' Params::Bool: these spellings, any case.
const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);

/** A Grape Boolean parameter: `true`, `True`, `t`, `yes`, `1`, … (undefined when absent or unreadable). */
export function boolParam(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : undefined;
  if (typeof v !== "string") return undefined;
  const s = v.toLowerCase();
  return TRUE.has(s) ? true : FALSE.has(s) ? false : undefined;
}

export function compareBy<T>(key: (x: T) => string | number, dir: 1 | -1, tie: (x: T) => number) {
  return (a: T, b: T) => {
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : tie(a) - tie(b)) * dir;
  };
}
