// A listed key is only a change when the declaration and the remote differ once both go through
// the handler's `desired` (the form plan compares). One case per rule.
import { describe, expect, it } from "vitest";
import type { Spec } from "../../src/providers/types.js";
import { withoutComparableAgreement } from "../../src/sync/comparable.js";

// A handler whose comparable form lowercases tool names and ignores how `ask` is spelled.
const desired = (spec: Spec): Spec => {
  const tools = spec.tools as { builtin?: string[]; permissions?: Record<string, string> } | undefined;
  if (spec.broken) throw new Error("cannot compare");
  return {
    instructions: spec.instructions,
    tools: {
      builtin: (tools?.builtin ?? []).map((t) => t.toLowerCase()).sort(),
      ask: Object.keys(tools?.permissions ?? {}).sort(),
    },
  };
};

const DECLARED: Spec = {
  instructions: "Hi.",
  tools: { builtin: ["Bash", "read"], permissions: { bash: "ask" } },
};

const CASES: Array<{ rule: string; remote: Spec; declared?: Spec; kept: string[] }> = [
  {
    rule: "a key spelled differently but comparing equal is dropped",
    remote: { instructions: "Hi.", tools: { builtin: ["bash", "read"], permissions: { bash: "ask" } } },
    kept: [],
  },
  {
    rule: "a key that differs in the comparable form is kept",
    remote: { instructions: "Hello.", tools: { builtin: ["read"], permissions: {} } },
    kept: ["instructions", "tools"],
  },
  {
    rule: "a key the comparable form does not know is kept for reconcile to judge",
    remote: { instructions: "Hi.", metadata: { team: "x" } },
    kept: ["metadata"],
  },
  {
    rule: "when desired cannot take the merged spec, the remote is compared as listed",
    declared: { ...DECLARED, broken: true },
    remote: { instructions: "Hi." },
    kept: ["instructions"],
  },
];

describe("comparison through the handler's comparable form", () => {
  for (const c of CASES)
    it(c.rule, async () => {
      const out = await withoutComparableAgreement(c.declared ?? DECLARED, c.remote, desired, "/tmp");
      expect(Object.keys(out).sort()).toEqual([...c.kept].sort());
    });
});
