/**
 * One row per rule: `invalid` must produce `code` at the `@@` mark; `valid` is the nearest
 * correct file and must produce no error at all (and no diagnostic with `code`).
 */
export interface RuleRow {
  code: string;
  rule: string;
  invalid: string;
  valid: string;
  severity?: "error" | "warning";
}

export const A = ["provider_a"];
export const B = ["provider_b"];
export const C = ["provider_c"];
export const D = ["provider_d"];

/** An agent block (two-space indented under `agents:`). */
export function agent(name: string, ...extra: string[]): string {
  return [
    `  ${name}:`,
    "    model: m",
    "    instructions: Do the work.",
    ...extra.map((l) => `    ${l}`),
  ].join("\n");
}

export const identity = "identities:\n  alice:\n    external_id: user-1";
export const forwardDelivery = ["delivery:", "  provider_b:", "    type: forward"];
/** A Forward agent on provider_b, with the environment its Template needs (`cfg` declares `fwd`). */
export const forward = [...forwardDelivery, "environment: fwd"];
