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

export function boolParam(v: unknown): boolean | undefined {
  if (v === true || v === "true" || v === "1") return true;
  if (v === false || v === "false" || v === "0") return false;
  return undefined;
}

export function compareBy<T>(key: (x: T) => string | number, dir: 1 | -1, tie: (x: T) => number) {
  return (a: T, b: T) => {
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : tie(a) - tie(b)) * dir;
  };
}
