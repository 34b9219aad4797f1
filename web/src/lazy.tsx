/**
 * Pages and parts loaded as chunks of their own, when first shown: the main bundle (every page's first load) stays
 * small. `lazy(() => import('./x.js').then((m) => m.Page))` is a component that shows "Loading" until its chunk is in.
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Loading, ProblemView } from './ui.js';

export function lazy<P extends object>(load: () => Promise<FunctionComponent<P>>): FunctionComponent<P> {
  let done: FunctionComponent<P> | null = null;
  let pending: Promise<FunctionComponent<P>> | null = null;
  return function Lazy(props: P) {
    const [error, setError] = useState<unknown>(null);
    const [, setTick] = useState(0);
    useEffect(() => {
      if (done) return;
      let live = true;
      pending ??= load().then(
        (c) => (done = c),
        (e: unknown) => {
          pending = null;
          throw e;
        },
      );
      pending.then(
        () => live && setTick(1),
        (e: unknown) => live && setError(e),
      );
      return () => {
        live = false;
      };
    }, []);
    const Done = done;
    return Done ? <Done {...props} /> : error ? <ProblemView error={error} /> : <Loading />;
  };
}
