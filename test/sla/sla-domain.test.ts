import { describe, expect, it } from 'vitest';
import { breachFlags, sortRules, targetMs, validateRules } from '../../src/modules/sla/sla.domain.js';

const d = (iso: string) => new Date(iso);

describe('validateRules', () => {
  it('accepts one rule per priority with resolution >= response, fractions included', () => {
    expect(
      validateRules([
        { priority: 'urgent', response_time_h: 0.5, resolution_time_h: 0.5 },
        { priority: 'low', response_time_h: 1, resolution_time_h: 1.5 },
      ]),
    ).toEqual([]);
    expect(validateRules([])).toEqual([]);
  });

  it('reports a duplicate priority at the later rule and a resolution below the response', () => {
    expect(
      validateRules([
        { priority: 'high', response_time_h: 2, resolution_time_h: 1 },
        { priority: 'high', response_time_h: 1, resolution_time_h: 1 },
      ]),
    ).toEqual([
      { path: '/rules/0/resolution_time_h', message: expect.any(String) },
      { path: '/rules/1/priority', message: expect.stringContaining('/rules/0') },
    ]);
  });
});

describe('targetMs', () => {
  it('turns hours into whole milliseconds', () => {
    expect(targetMs(0.5)).toBe(1_800_000);
    expect(targetMs(1 / 3)).toBe(1_200_000);
    expect(targetMs(24)).toBe(86_400_000);
  });
});

describe('sortRules', () => {
  it('orders rules urgent, high, medium, low', () => {
    const rules = (['low', 'urgent', 'medium', 'high'] as const).map((priority) => ({ priority }));
    expect(sortRules(rules).map((r) => r.priority)).toEqual(['urgent', 'high', 'medium', 'low']);
  });
});

describe('breachFlags', () => {
  const t = {
    response_due_at: d('2026-01-01T10:00:00.000Z'),
    resolution_due_at: d('2026-01-01T20:00:00.000Z'),
    responded_at: null,
    resolved_at: null,
  };

  it('is false up to and at the due time, true strictly after it, while not met', () => {
    expect(breachFlags(t, d('2026-01-01T10:00:00.000Z'))).toEqual({ response_breached: false, resolution_breached: false });
    expect(breachFlags(t, d('2026-01-01T10:00:00.001Z'))).toEqual({ response_breached: true, resolution_breached: false });
    expect(breachFlags(t, d('2026-01-02T00:00:00.000Z'))).toEqual({ response_breached: true, resolution_breached: true });
  });

  it('depends only on the timestamps once a target is met', () => {
    const met = { ...t, responded_at: d('2026-01-01T09:00:00.000Z'), resolved_at: d('2026-01-01T21:00:00.000Z') };
    expect(breachFlags(met, d('2030-01-01T00:00:00.000Z'))).toEqual({ response_breached: false, resolution_breached: true });
  });
});
