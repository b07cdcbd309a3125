import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, heapFlag } from "../src/heap.js";

/** The old-generation growth flag forge-mcp's HTTP server sets: its own, unless the operator set one. */
describe("heapFlag", () => {
  const ours = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  it.each([
    { why: "no node flags", execArgv: [], flag: ours },
    {
      why: "other node flags only",
      execArgv: ["--max-semi-space-size=4", "--enable-source-maps"],
      flag: ours,
    },
    { why: "the operator's own value", execArgv: ["--heap-growing-percent=50"], flag: undefined },
    {
      why: "the operator's own value, underscores",
      execArgv: ["--heap_growing_percent=50"],
      flag: undefined,
    },
    { why: "a flag that only starts alike", execArgv: ["--heap-growing-percentage=5"], flag: ours },
  ])("$why", ({ execArgv, flag }) => {
    expect(heapFlag(execArgv)).toBe(flag);
  });
});
