// One "abort" listener per signal, however many waits share it. A run hands one signal to every
// request it makes (apply's request signal, a plan's refresh): a listener per request in flight,
// per request queued behind the pacer and per retry wait passes EventTarget's limit of ten and
// Node prints a MaxListenersExceededWarning. Each wait registers here instead and unregisters
// when it ends, so nothing piles up on a long-lived signal either.

const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` once when `signal` aborts (in a microtask if it already has). Returns the
 * function that stops watching: call it when the wait ends any other way.
 */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    let live = true;
    queueMicrotask(() => {
      if (live) callback();
    });
    return () => {
      live = false;
    };
  }
  let set = watchers.get(signal);
  if (!set) {
    const created = new Set<() => void>();
    set = created;
    watchers.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        watchers.delete(signal);
        for (const watcher of [...created]) watcher();
      },
      { once: true },
    );
  }
  set.add(callback);
  const own = set;
  return () => {
    own.delete(callback);
  };
}
