/**
 * The metrics a module may record (contract section 15: `GET /metrics`). `app.ts` builds the implementation
 * (prom-client, `http/metrics.ts`) and passes it to the services that need it; tests may pass `NO_METRICS`.
 * Labels must never carry tenant data (no workspace slugs, ids, e-mails): use small fixed sets such as an outcome.
 */
export type Labels = Record<string, string | number>;

export interface CounterHandle {
  inc(labels?: Labels, value?: number): void;
}

export interface GaugeHandle {
  set(labels: Labels, value: number): void;
  set(value: number): void;
}

export interface HistogramHandle {
  observe(labels: Labels, value: number): void;
}

export interface Metrics {
  /** A counter; asking twice for one name returns the same counter. Name it `<area>_<thing>_total`. */
  counter(name: string, help: string, labelNames?: string[]): CounterHandle;
  gauge(name: string, help: string, labelNames?: string[]): GaugeHandle;
  histogram(name: string, help: string, labelNames?: string[], buckets?: number[]): HistogramHandle;
  /** A gauge read at scrape time (e.g. a cheap count query); a failing read is skipped, not an error. */
  collect(name: string, help: string, read: () => Promise<number> | number): void;
}

const noop = { inc() {}, set() {}, observe() {} };

export const NO_METRICS: Metrics = {
  counter: () => noop,
  gauge: () => noop,
  histogram: () => noop,
  collect: () => undefined,
};
