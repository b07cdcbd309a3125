import { expect } from "vitest";
import type { Call } from "./wire-client.js";

/**
 * One row per endpoint of a wire reference (docs/wire/<provider>.md §3). With made-up ids a served route
 * answers the provider's own 404 for the object ("… not found"), never the catch-all "route not found"; a
 * list answers 200 and a create with an empty body answers 400 (or 200 where every field is optional).
 * This proves every row is routed with the right verb.
 */
export type Row = [method: string, path: string];

export async function expectRouted(
  call: Call,
  [method, path]: Row,
  messageOf: (body: any) => string,
): Promise<void> {
  const hasId = path.includes("{");
  const concrete = path.replace(/\{[a-z_]+\}/g, "x_missing");
  const r = await call(method, concrete, method === "GET" || method === "DELETE" ? undefined : {});
  if (hasId) {
    expect(r.status, `${method} ${path}`).toBe(404);
    expect(messageOf(r.body)).not.toBe("route not found");
  } else if (method === "GET") {
    expect(r.status, `${method} ${path}`).toBe(200);
  } else {
    expect([200, 400], `${method} ${path}`).toContain(r.status);
    expect(r.body?.error?.message).not.toBe("route not found");
  }
}
