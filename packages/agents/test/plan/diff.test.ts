import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isEmptyValue, sameValue } from "../../src/plan/diff.js";

// The comparison every plan runs on every field, as written before it walked values in place
// (key lists, closures): the definition of "the same", which the faster one must keep exactly.
const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
function emptyByDefinition(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlain(value)) return Object.values(value).every(emptyByDefinition);
  return false;
}
function sameByDefinition(a: unknown, b: unknown): boolean {
  if (emptyByDefinition(a) && emptyByDefinition(b)) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameByDefinition(x, b[i]));
  if (isPlain(a) && isPlain(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameByDefinition(a[k], b[k]));
  }
  return a === b;
}

// Small alphabets, so that generated pairs often share keys and values, and nest empties.
const leaf = fc.oneof(
  fc.constantFrom(undefined, null, "", "a", "b", 0, 1, -0, Number.NaN, true, false),
  fc.constantFrom([], {}, [null], { k: undefined }, { k: [] }),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("node"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("k", "m", "x", "constructor"), tie("node"), { maxKeys: 3 }),
  ),
})).node;

describe("sameValue and isEmptyValue", () => {
  it("agree with their definition on any pair of values", () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(isEmptyValue(a)).toBe(emptyByDefinition(a));
        expect(sameValue(a, b)).toBe(sameByDefinition(a, b));
        expect(sameValue(a, a)).toBe(sameByDefinition(a, a));
        expect(sameValue(a, structuredClone(a))).toBe(sameByDefinition(a, structuredClone(a)));
      }),
      { numRuns: 800 },
    );
  });

  it.each([
    [
      "absent, null, empty list and empty map are the same nothing",
      undefined,
      { k: [], m: { n: null } },
      true,
    ],
    ["a list holding null is not empty", undefined, { k: [null] }, false],
    ["NaN is never the same as itself", Number.NaN, Number.NaN, false],
    ["a list holding NaN is not the same as itself", [Number.NaN], [Number.NaN], false],
    ["0 and -0 are the same", 0, -0, true],
    ["a key only one side has, with a value", { k: 1 }, { k: 1, m: 2 }, false],
    ["a key only one side has, empty", { k: 1 }, { k: 1, m: {} }, true],
    ["a key the other side inherits", { constructor: 1 }, {}, false],
    ["lists of different lengths", [1], [1, null], false],
    ["a hole is skipped", Object.assign(new Array(3), { 0: 1, 2: 3 }), [1, 2, 3], true],
  ])("%s", (_name, a, b, same) => {
    expect(sameValue(a, b)).toBe(same);
    expect(sameValue(a, b)).toBe(sameByDefinition(a, b));
  });
});
