// Readers for declared specs. The engine hands specs over as plain records (the zod-parsed
// agents.yaml bodies); these helpers read them defensively and keep mappers free of casts.

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function strList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Drops undefined values, empty arrays and empty objects, so "not set" has one spelling. */
export function compact<T extends Json>(value: T): T {
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (isRecord(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out as T;
}

export function nonEmpty(value: string | undefined | null): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
