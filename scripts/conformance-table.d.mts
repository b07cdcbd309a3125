// Types of conformance-table.mjs for the TypeScript tests (the runner itself is plain Node).
export type Expect = "pass" | "pending-item-2" | `not-applicable: ${string}`;
export interface Row {
  scenario: string;
  /** Expectation at the 2025 revisions (2025-03-26, 2025-06-18, 2025-11-25); absent: not run there. */
  at2025?: Expect;
  /** Expectation at 2026-07-28; absent: not run there. */
  at2026?: Expect;
}
export interface Result {
  mode: string;
  suite: string;
  revision: string;
  scenario: string;
  outcome: "pass" | "fail";
  detail: string;
}
export interface Verdict extends Result {
  expect: Expect | undefined;
  ok: boolean;
  note: string;
}
export const TABLE: Row[];
export function expectationFor(table: Row[], scenario: string, revision: string): Expect | undefined;
export function judge(
  results: Result[],
  table: Row[],
): { verdicts: Verdict[]; stale: string[]; failed: boolean };
