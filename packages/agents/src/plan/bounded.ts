/**
 * A counting semaphore: `run(fn)` starts `fn` once fewer than `limit` runs are in flight, in the
 * order asked unless `first` is set. Unlike
 * mapBounded, work may be added from anywhere (a read that first waits for a listing holds no slot
 * while it waits).
 */
export function limiter(
  limit: number,
): <R>(fn: () => Promise<R>, options?: { first?: boolean }) => Promise<R> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn, options) => {
    if (active < Math.max(1, limit)) active++;
    // `first`: ahead of everything waiting (a listing's next page, which many reads wait on).
    else
      await new Promise<void>((resolve) =>
        options?.first ? waiting.unshift(resolve) : waiting.push(resolve),
      );
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next waiter, so `active` counts it still.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** Maps `items` through `fn` with at most `limit` calls in flight; results keep input order. */
export function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const slot = limiter(limit);
  return Promise.all(items.map((item) => slot(() => fn(item))));
}

/**
 * For long synchronous work beside requests in flight: every `every` calls, waits for the event
 * loop's next turn, so sockets connect, requests go out and answers are read between slices. A
 * plan prepares and diffs hundreds of resources while its reads are on the wire; in one piece
 * that work held back the very reads it was meant to overlap.
 */
export function breather(every = 50): () => Promise<void> | undefined {
  let calls = 0;
  return () => {
    calls += 1;
    return calls % every === 0 ? new Promise((resolve) => setImmediate(resolve)) : undefined;
  };
}
