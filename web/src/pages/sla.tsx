/** The SLA pages the router names: the breached and at-risk boards (sla/boards.tsx) and the policies (sla/policies.tsx). */
export { AtRiskBoard, BreachedBoard } from './sla/boards.js';
export { Policies } from './sla/policies.js';
