// The dependency graph, once: the order a graph is worked in, the cycles in it, and the walk that
// runs it. Validation rejects a cycle among declared resources with its path (AGENTS1303), so plan
// and apply take their graphs as acyclic: a cycle reaching them is a bug, reported as one, never
// cut or skipped in silence.
//
// A node's edges name the nodes it needs first. An edge to itself or to a node outside the graph
// orders nothing and is ignored everywhere.

/** How to read a node's identity and the identities of the nodes it depends on. */
export interface Edges<T> {
  id(node: T): string;
  deps(node: T): readonly string[];
}

/** The nodes by identity; a repeated identity is one node, the first given. */
function indexById<T>(nodes: readonly T[], edges: Edges<T>): Map<string, T> {
  const byId = new Map<string, T>();
  for (const node of nodes) if (!byId.has(edges.id(node))) byId.set(edges.id(node), node);
  return byId;
}

/**
 * Every node after the nodes it depends on: a depth-first walk from each node in the order given,
 * dependencies in the order given, so equal input gives equal output. Nodes on a cycle, and the
 * nodes that depend on one, are returned in `cyclic` (in input order), not dropped.
 */
export function dependencyOrder<T>(nodes: readonly T[], edges: Edges<T>): { order: T[]; cyclic: T[] } {
  const byId = indexById(nodes, edges);
  const mark = new Map<string, "open" | "placed" | "blocked">();
  const order: T[] = [];
  // True once the node is placed; false when it is on a cycle or waits on one.
  const visit = (id: string, node: T): boolean => {
    const seen = mark.get(id);
    if (seen !== undefined) return seen === "placed";
    mark.set(id, "open");
    let clear = true;
    for (const dep of edges.deps(node)) {
      const target = dep === id ? undefined : byId.get(dep);
      if (target !== undefined && !visit(dep, target)) clear = false;
    }
    mark.set(id, clear ? "placed" : "blocked");
    if (clear) order.push(node);
    return clear;
  };
  for (const [id, node] of byId) visit(id, node);
  return { order, cyclic: nodes.filter((node) => mark.get(edges.id(node)) !== "placed") };
}

/** Each distinct cycle as the path [a, b, ..., a], found once whichever node it is entered from. */
export function dependencyCycles<T>(nodes: readonly T[], edges: Edges<T>): string[][] {
  const byId = indexById(nodes, edges);
  const cycles: string[][] = [];
  const reported = new Set<string>();
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (id: string, node: T) => {
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of edges.deps(node)) {
      const target = dep === id ? undefined : byId.get(dep);
      if (target === undefined) continue;
      if (state.get(dep) === "visiting") {
        const cycle = [...stack.slice(stack.indexOf(dep)), dep];
        const key = cycle.slice(0, -1).sort().join("\u0000");
        if (!reported.has(key)) {
          reported.add(key);
          cycles.push(cycle);
        }
      } else if (!state.has(dep)) {
        visit(dep, target);
      }
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const [id, node] of byId) if (!state.has(id)) visit(id, node);
  return cycles;
}

/** `dependencyOrder` of a graph validation proved acyclic; throws on a cycle, naming its path. */
export function acyclicOrder<T>(nodes: readonly T[], edges: Edges<T>): T[] {
  const { order, cyclic } = dependencyOrder(nodes, edges);
  if (cyclic.length > 0) {
    const [cycle] = dependencyCycles(cyclic, edges);
    throw new Error(
      `internal error: dependency cycle ${(cycle ?? []).join(" → ")}; validation should have rejected it`,
    );
  }
  return order;
}

/** Thrown by a task that stopped before doing anything because the run was interrupted. */
export class Interrupted extends Error {
  constructor() {
    super("interrupted");
  }
}

export interface WalkTask {
  id: string;
  deps: readonly string[];
  run(): Promise<void>;
}

export type WalkEvent =
  | { type: "start"; id: string }
  | { type: "done"; id: string; ms: number }
  | { type: "failed"; id: string; ms: number; error: unknown }
  | { type: "skipped"; id: string; because: string };

export interface WalkResult {
  done: string[];
  failed: Array<{ id: string; error: unknown }>;
  skipped: Array<{ id: string; because: string }>;
}

const taskEdges: Edges<WalkTask> = { id: (task) => task.id, deps: (task) => task.deps };

/**
 * Runs the tasks: one starts as soon as every task it depends on has finished, with at most
 * `parallelism` in flight. A failed task skips everything that depends on it, transitively;
 * independent branches carry on. Rejects at once, running nothing, when the tasks hold a cycle.
 */
export function walkGraph(
  tasks: WalkTask[],
  options: { parallelism: number; onEvent?: (event: WalkEvent) => void; signal?: AbortSignal },
): Promise<WalkResult> {
  let order: WalkTask[];
  try {
    order = acyclicOrder(tasks, taskEdges);
  } catch (error) {
    return Promise.reject(error);
  }
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const waitingOn = new Map<string, Set<string>>();
  const dependents = new Map<string, string[]>();
  for (const task of tasks) {
    const deps = new Set(task.deps.filter((d) => byId.has(d) && d !== task.id));
    waitingOn.set(task.id, deps);
    for (const d of deps) dependents.set(d, [...(dependents.get(d) ?? []), task.id]);
  }
  const result: WalkResult = { done: [], failed: [], skipped: [] };
  // Critical-path first: among ready tasks, start the one with the longest chain of dependents.
  // Dependents come later in the order, so one pass from the end measures every chain.
  const height = new Map<string, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]!.id;
    height.set(id, 1 + Math.max(0, ...(dependents.get(id) ?? []).map((d) => height.get(d)!)));
  }
  const ready: string[] = [];
  const enqueue = (id: string) => {
    const h = height.get(id)!;
    let i = ready.length;
    while (i > 0 && height.get(ready[i - 1]!)! < h) i--;
    ready.splice(i, 0, id);
  };
  for (const t of tasks) if (waitingOn.get(t.id)!.size === 0) enqueue(t.id);
  const settled = new Set<string>();
  let running = 0;
  const emit = options.onEvent ?? (() => {});
  const parallelism = Math.max(1, options.parallelism);

  return new Promise((resolve) => {
    const skip = (id: string, because: string) => {
      if (settled.has(id)) return;
      settled.add(id);
      result.skipped.push({ id, because });
      emit({ type: "skipped", id, because });
      for (const next of dependents.get(id) ?? []) skip(next, because);
    };
    const pump = () => {
      while (running < parallelism && ready.length > 0) {
        const id = ready.shift()!;
        if (settled.has(id)) continue;
        if (options.signal?.aborted) {
          skip(id, "interrupted");
          continue;
        }
        const task = byId.get(id)!;
        running++;
        const started = performance.now();
        emit({ type: "start", id });
        task.run().then(
          () => {
            running--;
            settled.add(id);
            result.done.push(id);
            emit({ type: "done", id, ms: performance.now() - started });
            for (const next of dependents.get(id) ?? []) {
              const deps = waitingOn.get(next)!;
              deps.delete(id);
              if (deps.size === 0 && !settled.has(next)) enqueue(next);
            }
            pump();
          },
          (error: unknown) => {
            running--;
            if (error instanceof Interrupted) {
              skip(id, "interrupted");
              pump();
              return;
            }
            settled.add(id);
            result.failed.push({ id, error });
            emit({ type: "failed", id, ms: performance.now() - started, error });
            for (const next of dependents.get(id) ?? []) skip(next, `${id} failed`);
            pump();
          },
        );
      }
      // Acyclic, every task settles: done, failed, or skipped after what it waits on.
      if (running === 0 && ready.length === 0) resolve(result);
    };
    pump();
  });
}
