import { describe, expect, it } from "vitest";
import { judge, type Result, type Row, TABLE } from "./conformance-table.mjs";

// The rule the conformance runner (scripts/conformance.mjs) judges the suite's results by: a row
// says what a scenario must do, and a result that is not that fails the run, including a pending
// scenario that passes (its row must be flipped) and a scenario or a row the other one lacks.
const table: Row[] = [
  { scenario: "ping", at2025: "pass" },
  { scenario: "caching", at2026: "pending-item-2" },
  { scenario: "tools-list", at2025: "pass", at2026: "pending-item-2" },
  { scenario: "prompts-list", at2025: "not-applicable: no prompts", at2026: "not-applicable: no prompts" },
];
const result = (scenario: string, revision: string, outcome: "pass" | "fail"): Result => ({
  mode: "pat",
  suite: "0.2.0-alpha.12",
  revision,
  scenario,
  outcome,
  detail: outcome === "fail" ? "check-id: what failed" : "",
});

describe("judge", () => {
  it.each([
    { row: "pass, passes", r: result("ping", "2025-11-25", "pass"), ok: true },
    { row: "pass, fails", r: result("ping", "2025-06-18", "fail"), ok: false },
    { row: "pending, fails", r: result("caching", "2026-07-28", "fail"), ok: true },
    { row: "pending, passes", r: result("caching", "2026-07-28", "pass"), ok: false },
    {
      row: "pass at 2025, pending at 2026: passes at 2025",
      r: result("tools-list", "2025-03-26", "pass"),
      ok: true,
    },
    {
      row: "pass at 2025, pending at 2026: passes at 2026",
      r: result("tools-list", "2026-07-28", "pass"),
      ok: false,
    },
    { row: "not applicable, fails", r: result("prompts-list", "2025-11-25", "fail"), ok: true },
    { row: "not applicable, passes", r: result("prompts-list", "2026-07-28", "pass"), ok: true },
    { row: "no row for the scenario", r: result("server-stateless", "2026-07-28", "fail"), ok: false },
    { row: "a row, but not at this revision", r: result("caching", "2025-11-25", "fail"), ok: false },
  ])("$row → ok: $ok", ({ r, ok }) => {
    const others = table
      .filter((row) => row.scenario !== r.scenario)
      .map((row) => result(row.scenario, row.at2025 ? "2025-11-25" : "2026-07-28", "fail"));
    const expected = (s: string) => table.find((row) => row.scenario === s)?.at2025 === "pass";
    const passing = others.map((o) => (expected(o.scenario) ? { ...o, outcome: "pass" as const } : o));
    const { verdicts, failed } = judge([r, ...passing], table);
    expect(verdicts[0]!.ok).toBe(ok);
    expect(failed).toBe(!ok);
  });

  it("a pending scenario that passes says which row to flip", () => {
    const { verdicts } = judge([result("caching", "2026-07-28", "pass")], table);
    expect(verdicts[0]!.note).toMatch(/change its row .* to "pass"/);
  });

  it("a row that no result met is stale and fails the run", () => {
    const { stale, failed } = judge([result("ping", "2025-11-25", "pass")], table);
    expect(stale).toEqual(["caching", "tools-list", "prompts-list"]);
    expect(failed).toBe(true);
  });
});

describe("the checked-in table", () => {
  it("has one row per scenario, each with a well-formed expectation at one revision or both", () => {
    const names = TABLE.map((r) => r.scenario);
    expect(new Set(names).size).toBe(names.length);
    for (const row of TABLE) {
      expect(row.at2025 ?? row.at2026, row.scenario).toBeDefined();
      for (const e of [row.at2025, row.at2026].filter((x) => x !== undefined))
        expect(e, row.scenario).toMatch(/^(pass|pending-item-2|not-applicable: .+)$/);
    }
  });

  it("pends only 2026-07-28 scenarios: every 2025 scenario that applies passes", () => {
    expect(TABLE.filter((r) => r.at2025 === "pending-item-2").map((r) => r.scenario)).toEqual([]);
  });
});
