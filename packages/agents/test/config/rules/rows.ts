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

/**
 * A row's two files from one text, for a rule whose nearest correct file differs from the
 * invalid one in a few places: `[[bad|good]]` stands at each. The invalid file takes every `bad`
 * (one of them carries the `@@` mark where the rule must report); the valid file every `good`.
 */
export function twins(text: string): Pick<RuleRow, "invalid" | "valid"> {
  const choice = /\[\[([^|\]]*)\|([^\]]*)\]\]/g;
  if (!text.match(choice)?.some((c) => c.startsWith("[[@@"))) throw new Error(`no [[@@bad|good]] in ${text}`);
  return { invalid: text.replace(choice, "$1"), valid: text.replace(choice, "$2") };
}
