/**
 * What a workspace's plan allows. The billing module implements it; the modules that create capped things
 * (members, projects, custom property definitions) ask it inside their own transaction before they create.
 * Each method throws AppError 402 when the plan does not allow the action.
 */
export type PlanFeature = 'time_tracking' | 'custom_properties';

export interface PlanGate<Tx> {
  assertCanAddMember(tx: Tx, workspaceId: string): Promise<void>;
  assertCanAddProject(tx: Tx, workspaceId: string): Promise<void>;
  assertFeature(tx: Tx, workspaceId: string, feature: PlanFeature): Promise<void>;
  /** The plan's storage in bytes (`max_storage_gb` × 1,073,741,824), or null when unlimited (25.3). */
  storageLimitBytes(tx: Tx, workspaceId: string): Promise<number | null>;
}

export const allowAllPlanGate: PlanGate<unknown> = {
  assertCanAddMember: async () => {},
  assertCanAddProject: async () => {},
  assertFeature: async () => {},
  storageLimitBytes: async () => null,
};
