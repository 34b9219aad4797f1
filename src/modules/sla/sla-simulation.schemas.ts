import { Type } from 'typebox';
import { Uuid } from '../../http/schemas.js';
import { CreatePolicyBody, Rule } from './sla.schemas.js';

/** Request and response of the policy simulation (contract 20.2). */

const LocalDate = (what: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: `${what}, a local date YYYY-MM-DD in the workspace time_zone (inclusive)` });

/** A draft policy: validated as the body of a policy create (same schema pieces, same domain checks). */
export const DraftPolicy = Type.Object(
  {
    rules: Type.Array(Rule, { maxItems: 100, description: 'At most one rule per priority; resolution_time_h >= response_time_h' }),
    calendar_id: CreatePolicyBody.properties.calendar_id,
    at_risk_percent: CreatePolicyBody.properties.at_risk_percent,
  },
  { description: 'The draft policy, as it would be saved (its rules, calendar and at-risk share)' },
);

export const SimulateBody = Type.Object({
  policy: DraftPolicy,
  from: LocalDate('First day of issue creation'),
  to: LocalDate('Last day of issue creation; at most 366 days after from, counting both'),
  project_id: Type.Optional(Uuid),
});

const Block = Type.Object({
  met: Type.Integer({ description: 'Targets met in time' }),
  breached: Type.Integer({ description: 'Targets breached (met late, or not met and past due)' }),
  open: Type.Integer({ description: 'Targets not met and not breached at the moment of the request' }),
  achievement_percent: Type.Union([Type.Number(), Type.Null()], { description: 'met / (met + breached) * 100, one decimal; null when both are 0' }),
});
const Blocks = Type.Object({ response: Block, resolution: Block });
const OutcomeSchema = Type.Enum(['met', 'breached', 'open']);

export const SimulationResult = Type.Object({
  issues: Type.Integer({ description: 'Issues created in the range (and project) that were replayed' }),
  current: Blocks,
  draft: Blocks,
  by_priority: Type.Array(Type.Object({ priority: Type.Enum(['urgent', 'high', 'medium', 'low']), current: Blocks, draft: Blocks }), {
    description: 'urgent, high, medium, low: the targets each rule decided',
  }),
  changed: Type.Object({
    total: Type.Integer({ description: 'Targets measured under both policies whose outcome differs' }),
    items: Type.Array(Type.Object({ issue_id: Uuid, target: Type.Enum(['response', 'resolution']), current: OutcomeSchema, draft: OutcomeSchema }), {
      description: 'The first 100 of them, oldest issue first',
    }),
  }),
});
