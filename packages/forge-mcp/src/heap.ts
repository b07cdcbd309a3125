import { PerformanceObserver } from "node:perf_hooks";
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

/**
 * V8's young generation: two semi-spaces, which V8 doubles (from 1 MiB, up to 16 MiB each) while
 * much of what it allocates survives. Loading forge-mcp's modules is such a phase, so an idle
 * forge-mcp already held 32 MiB of young generation, resident, for about 4 MiB of objects.
 * `--max-semi-space-size` can only be given when node starts, but V8 reads
 * `--semi-space-growth-factor` at every growth: growth is held (factor 1) while the modules load,
 * then allowed (V8's factor 2) only while the young generation is at most half the cap
 * (capYoungGeneration). Held at start-up and capped at 8 MiB a semi-space, the HTTP server idled
 * at about 78 MiB instead of 100 and peaked at 112-138 MiB instead of 140-160 under the 16-client
 * load, for at most 0.05 ms more CPU per call (docs/forge-mcp.md §"Cost per call"); smaller
 * semi-spaces cost more CPU per call (more of each call's objects survive to be copied and
 * promoted): 4 MiB 0.05-0.12 ms, 1 MiB about half a call more. An operator's own semi-space flags win (then none of this is done).
 */
export const SEMI_SPACE_MIB = 8;

const OWN_GROWING = /^--heap[-_]growing[-_]percent(=|$)/;
const OWN_SEMI_SPACE = /^--(max|min)[-_]semi[-_]space[-_]size(=|$)|^--semi[-_]space[-_]growth[-_]factor(=|$)/;

/** The node flags the operator gave: on the command line and in NODE_OPTIONS. */
function operatorFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return [...execArgv, ...(nodeOptions ?? "").split(/\s+/).filter(Boolean)];
}

/** The V8 flag forge-mcp sets for its HTTP server, or undefined when the operator set their own. */
export function heapFlag(
  execArgv: readonly string[],
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string | undefined {
  if (operatorFlags(execArgv, nodeOptions).some((a) => OWN_GROWING.test(a))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Whether forge-mcp sizes the young generation itself: unless the operator set a semi-space flag. */
export function sizesYoungGeneration(
  execArgv: readonly string[],
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): boolean {
  return !operatorFlags(execArgv, nodeOptions).some((a) => OWN_SEMI_SPACE.test(a));
}

const growth = (factor: number) => v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`);

/** The young generation's size now (both semi-spaces, bytes). */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
}

/**
 * Holds the young generation at its size while forge-mcp loads its modules (main.ts calls this
 * before it loads them); tuneHeap, or releaseYoungGeneration for stdio, lets it grow again.
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv): void {
  if (sizesYoungGeneration(execArgv)) growth(1);
}

/** V8's own growth again, without a cap (stdio: one client, not worth a bound). */
export function releaseYoungGeneration(execArgv: readonly string[] = process.execArgv): void {
  if (!sizesYoungGeneration(execArgv)) return;
  capping?.disconnect();
  capping = undefined;
  growth(2);
}

let capping: PerformanceObserver | undefined;

/**
 * Keeps the young generation at most `semiSpaceMiB` a semi-space while letting V8 size it below
 * that: V8 grows it (doubling) and shrinks it (when the process goes quiet) only in a collection,
 * so after each collection growth is allowed while one more doubling stays within the cap, and
 * held otherwise. (Held for good at the cap, it could not grow back after a quiet spell shrank it,
 * and 1 MiB a semi-space costs CPU per call: more of each call's objects survive to be copied.)
 */
export function capYoungGeneration(semiSpaceMiB = SEMI_SPACE_MIB): void {
  capping?.disconnect();
  const cap = 2 * semiSpaceMiB * 2 ** 20;
  let factor = 0;
  const regulate = () => {
    const next = 2 * youngGenerationBytes() <= cap ? 2 : 1;
    if (next !== factor) growth(next);
    factor = next;
  };
  regulate();
  capping = new PerformanceObserver(regulate);
  capping.observe({ entryTypes: ["gc"] });
}

/** Sets heapFlag's flag, if any, and caps the young generation unless the operator sized it; returns the flag. */
export function tuneHeap(execArgv: readonly string[] = process.execArgv): string | undefined {
  const flag = heapFlag(execArgv);
  if (flag) v8.setFlagsFromString(flag);
  if (sizesYoungGeneration(execArgv)) capYoungGeneration();
  return flag;
}
