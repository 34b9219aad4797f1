import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';

/**
 * A sliding-window counter per key, in process memory. Enough for one instance; with several instances each
 * counts on its own, so the effective limit is per instance (see README).
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  private recent(key: string, now: number): number[] {
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length) this.hits.set(key, list);
    else this.hits.delete(key);
    return list;
  }

  /** Throws 429 with Retry-After when `key` already used up its window. */
  assertAllowed(key: string, what: string): void {
    const now = this.clock.now().getTime();
    const list = this.recent(key, now);
    if (list.length >= this.limit) {
      const retryAfter = Math.max(1, Math.ceil((list[0]! + this.windowMs - now) / 1000));
      throw new AppError('rate_limited', `Too many ${what}; try again in ${retryAfter} s`, undefined, {
        'retry-after': String(retryAfter),
      });
    }
  }

  record(key: string): void {
    const now = this.clock.now().getTime();
    const list = this.recent(key, now);
    list.push(now);
    this.hits.set(key, list);
  }

  clear(key: string): void {
    this.hits.delete(key);
  }
}
