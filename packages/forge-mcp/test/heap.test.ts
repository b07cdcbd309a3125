import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, heapFlag, sizesYoungGeneration } from "../src/heap.js";

/** The old-generation growth flag forge-mcp's HTTP server sets: its own, unless the operator set one. */
describe("heapFlag", () => {
  const ours = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  it.each([
    { why: "no node flags", execArgv: [], nodeOptions: undefined, flag: ours },
    {
      why: "other node flags only",
      execArgv: ["--max-semi-space-size=4", "--enable-source-maps"],
      nodeOptions: "--enable-source-maps",
      flag: ours,
    },
    {
      why: "the operator's own value",
      execArgv: ["--heap-growing-percent=50"],
      nodeOptions: "",
      flag: undefined,
    },
    {
      why: "the operator's own value, underscores",
      execArgv: ["--heap_growing_percent=50"],
      nodeOptions: undefined,
      flag: undefined,
    },
    {
      why: "the operator's own value in NODE_OPTIONS",
      execArgv: [],
      nodeOptions: "--enable-source-maps  --heap-growing-percent=50",
      flag: undefined,
    },
    {
      why: "a flag that only starts alike",
      execArgv: ["--heap-growing-percentage=5"],
      nodeOptions: undefined,
      flag: ours,
    },
  ])("$why", ({ execArgv, nodeOptions, flag }) => {
    expect(heapFlag(execArgv, nodeOptions)).toBe(flag);
  });
});

/** Whether forge-mcp holds and caps the young generation: unless the operator sized it. */
describe("sizesYoungGeneration", () => {
  it.each([
    { why: "no node flags", execArgv: [], nodeOptions: undefined, ours: true },
    {
      why: "other node flags",
      execArgv: ["--heap-growing-percent=50"],
      nodeOptions: "--inspect",
      ours: true,
    },
    {
      why: "--max-semi-space-size",
      execArgv: ["--max-semi-space-size=8"],
      nodeOptions: undefined,
      ours: false,
    },
    {
      why: "--max_semi_space_size in NODE_OPTIONS",
      execArgv: [],
      nodeOptions: "--max_semi_space_size=8",
      ours: false,
    },
    {
      why: "--min-semi-space-size",
      execArgv: ["--min-semi-space-size=2"],
      nodeOptions: undefined,
      ours: false,
    },
    {
      why: "--semi-space-growth-factor",
      execArgv: [],
      nodeOptions: "--semi-space-growth-factor=4",
      ours: false,
    },
    {
      why: "a flag that only starts alike",
      execArgv: ["--max-semi-space-sizes=1"],
      nodeOptions: "",
      ours: true,
    },
  ])("$why", ({ execArgv, nodeOptions, ours }) => {
    expect(sizesYoungGeneration(execArgv, nodeOptions)).toBe(ours);
  });
});
