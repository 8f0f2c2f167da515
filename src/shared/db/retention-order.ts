import type { RetentionPlan, RetentionReference } from './partition-retention';

/**
 * The order a pass runs the plans in: a plan whose tables hold keys of another plan (a registered reference)
 * before that plan, so a month of webhook deliveries that goes in this pass no longer holds its events' month,
 * and both go in the same pass when their retentions are equal. Otherwise the order of registration; plans that
 * reference each other in a circle keep it too.
 */
export function passOrder(plans: readonly RetentionPlan[], references: ReadonlyMap<string, readonly RetentionReference[]>): RetentionPlan[] {
  const owner = new Map<string, RetentionPlan>();
  for (const plan of plans) for (const t of plan.tables) owner.set(t.table, plan);
  /** The plans that must run before `plan`: those owning a table that holds its keys. */
  const before = (plan: RetentionPlan) =>
    (references.get(plan.name) ?? []).map((r) => owner.get(r.table)).filter((q): q is RetentionPlan => q !== undefined && q !== plan);
  const ordered: RetentionPlan[] = [];
  const left = [...plans];
  while (left.length) {
    const ready = left.findIndex((plan) => before(plan).every((q) => !left.includes(q)));
    ordered.push(...left.splice(ready < 0 ? 0 : ready, 1));
  }
  return ordered;
}
