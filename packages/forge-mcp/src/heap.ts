import v8 from "node:v8";

/**
 * V8's old generation under a steady stream of tool calls. Each call's objects that are still in
 * flight when the young generation is collected (the request, the forge call, the parsed body) are
 * promoted, and by default V8 lets the old generation grow to a multiple of what is live before it
 * collects it: under 16 clients forge-mcp's resident set went from 90 MiB to 200-240 MiB while
 * about 30 MiB of heap was live. Collecting the old generation once it has grown by a fifth keeps
 * the process near its live size (about 130 MiB under that load) for no measurable CPU per call
 * (docs/forge-mcp.md §"Cost per call"). V8 reads this flag at every collection, so it can be set
 * once the process runs; an operator's own `--heap-growing-percent` wins.
 */
export const HEAP_GROWING_PERCENT = 20;

/** The V8 flag forge-mcp sets for its HTTP server, or undefined when the operator set their own. */
export function heapFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Sets heapFlag's flag, if any; returns it. */
export function tuneHeap(execArgv: readonly string[] = process.execArgv): string | undefined {
  const flag = heapFlag(execArgv);
  if (flag) v8.setFlagsFromString(flag);
  return flag;
}
