/** The one source of "now" for domain logic, so tests can move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-15T09:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }

  advanceHours(hours: number): void {
    this.advance(hours * HOUR_MS);
  }

  advanceDays(days: number): void {
    this.advance(days * DAY_MS);
  }
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export const addMs = (at: Date, ms: number): Date => new Date(at.getTime() + ms);
