import { describe, expect, it } from 'vitest';
import { createEventBus } from '../../src/kernel/events.js';

describe('event bus', () => {
  it('delivers events to the subscribers of their type, in order, with the transaction', async () => {
    const bus = createEventBus<string>();
    const seen: string[] = [];
    bus.subscribe('issue.deleted', async (tx, e) => void seen.push(`a:${tx}:${e.issue.id}`));
    bus.subscribe('issue.deleted', async (tx, e) => void seen.push(`b:${tx}:${e.issue.id}`));
    bus.subscribe('comment.created', async () => void seen.push('never'));
    const issue = {
      id: 'i1',
      workspaceId: 'w',
      projectId: 'p',
      priority: 'none' as const,
      stateId: 's',
      stateGroup: 'backlog' as const,
      createdBy: 'u',
      createdAt: new Date(),
    };
    await bus.publish('tx1', { type: 'issue.deleted', at: new Date(), issue });
    expect(seen).toEqual(['a:tx1:i1', 'b:tx1:i1']);
  });

  it('lets a failing subscriber fail the publish (and with it the transaction)', async () => {
    const bus = createEventBus<null>();
    bus.subscribe('project.sla_policy_changed', async () => {
      throw new Error('veto');
    });
    await expect(bus.publish(null, { type: 'project.sla_policy_changed', at: new Date(), workspaceId: 'w', projectId: 'p', policyId: null })).rejects.toThrow(
      'veto',
    );
  });
});
