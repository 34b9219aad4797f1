/**
 * The runs of a background worker in one process (the webhook and mail workers): one at a time (`serial`), and
 * `wake()` after a commit that gave it work: a run 20 ms later, a second 250 ms later and a third 1.5 s later (for a
 * slow commit: the wake comes from inside the transaction, and a loaded machine was seen committing more than 250 ms
 * after it). Wakes coalesce, so a burst of commits costs three runs, not one per commit; the periodic job stays the
 * fallback. `close()` stops new runs and waits for the one in flight.
 */
export function createRunLoop(runOnce: () => Promise<unknown>, onError: (err: unknown) => void) {
  let chain: Promise<unknown> = Promise.resolve();
  let closed = false;
  const timers = new Set<NodeJS.Timeout>();
  const pending = new Set<number>();

  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work, work);
    chain = next.catch(() => undefined);
    return next;
  };

  return {
    serial,
    /** Whether `close()` was called (a run in flight stops claiming more). */
    get closed() {
      return closed;
    },
    wake() {
      for (const delay of [20, 250, 1500] as const) {
        if (closed || pending.has(delay)) continue;
        pending.add(delay);
        const timer = setTimeout(() => {
          timers.delete(timer);
          pending.delete(delay);
          if (!closed) void serial(runOnce).catch(onError);
        }, delay);
        timers.add(timer);
      }
    },
    async close() {
      closed = true;
      timers.forEach((t) => clearTimeout(t));
      await chain;
    },
  };
}
