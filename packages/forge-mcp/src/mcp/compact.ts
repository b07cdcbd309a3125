import type { ToolAnnotations } from "./catalogue.js";

/**
 * What tools/list says about a tool, without what costs the model tokens and tells it nothing:
 * every tool definition is sent to the model in every session, so a byte here is paid per tool per
 * session. Left out: the JSON Schema dialect (`$schema`: MCP fixes it), the bounds zod writes on
 * every integer (±2^53−1, the safe-integer range, which no forge id comes near) and annotations at
 * their spec default (openWorldHint true, idempotentHint false; idempotentHint and destructiveHint
 * mean nothing on a reader). What is left is what the client could not infer.
 */

const SAFE = Number.MAX_SAFE_INTEGER;

/** A JSON Schema with the dialect and the safe-integer bounds left out, at every depth. */
export function compactSchema<T>(schema: T): T {
  return strip(schema, true) as T;
}

function strip(node: unknown, top: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => strip(n, false));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (top && k === "$schema") continue;
    if (k === "minimum" && v === -SAFE) continue;
    if (k === "maximum" && v === SAFE) continue;
    out[k] = strip(v, false);
  }
  return out;
}

/**
 * A tool's annotations as the wire carries them: readOnlyHint always (the one a client acts on
 * most), and on a writer destructiveHint (whose spec default, true, is the unsafe guess for most
 * writers, so both values are said); the others only where they differ from their default.
 */
export function wireAnnotations(a: ToolAnnotations): Partial<ToolAnnotations> {
  const out: Partial<ToolAnnotations> = { readOnlyHint: a.readOnlyHint };
  if (!a.readOnlyHint) {
    out.destructiveHint = a.destructiveHint;
    if (a.idempotentHint) out.idempotentHint = true;
  }
  if (!a.openWorldHint) out.openWorldHint = false;
  return out;
}
