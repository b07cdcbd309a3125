// The graph walk: a task starts as soon as every task it depends on has finished, with at most
// `parallelism` in flight. A failed task skips everything that depends on it, transitively;
// independent branches carry on.

/** Thrown by a task that stopped before doing anything because the run was interrupted. */
export class Interrupted extends Error {
  constructor() {
    super("interrupted");
  }
}

interface DagTask {
  id: string;
  deps: string[];
  run(): Promise<void>;
}

type DagEvent =
  | { type: "start"; id: string }
  | { type: "done"; id: string; ms: number }
  | { type: "failed"; id: string; ms: number; error: unknown }
  | { type: "skipped"; id: string; because: string };

interface DagResult {
  done: string[];
  failed: Array<{ id: string; error: unknown }>;
  skipped: Array<{ id: string; because: string }>;
}

export function runDag(
  tasks: DagTask[],
  options: { parallelism: number; onEvent?: (event: DagEvent) => void; signal?: AbortSignal },
): Promise<DagResult> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const waitingOn = new Map<string, Set<string>>();
  const dependents = new Map<string, string[]>();
  for (const task of tasks) {
    const deps = new Set(task.deps.filter((d) => byId.has(d) && d !== task.id));
    waitingOn.set(task.id, deps);
    for (const d of deps) dependents.set(d, [...(dependents.get(d) ?? []), task.id]);
  }
  const result: DagResult = { done: [], failed: [], skipped: [] };
  // Critical-path first: among ready tasks, start the one with the longest chain of dependents.
  const height = new Map<string, number>();
  const heightOf = (id: string, path = new Set<string>()): number => {
    const known = height.get(id);
    if (known !== undefined) return known;
    if (path.has(id)) return 0;
    path.add(id);
    const h = 1 + Math.max(0, ...(dependents.get(id) ?? []).map((d) => heightOf(d, path)));
    path.delete(id);
    height.set(id, h);
    return h;
  };
  const ready: string[] = [];
  const enqueue = (id: string) => {
    const h = heightOf(id);
    let i = ready.length;
    while (i > 0 && heightOf(ready[i - 1]!) < h) i--;
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
    const finish = () => {
      if (running > 0 || ready.length > 0) return false;
      // Whatever is left waits on a cycle (or on skipped work): report it rather than hang.
      for (const task of tasks) if (!settled.has(task.id)) skip(task.id, "dependency cycle");
      resolve(result);
      return true;
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
      finish();
    };
    pump();
  });
}
