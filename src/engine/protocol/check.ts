/** Runs the checked configurations and compares each verdict with the expected one. */
import { CHECKED_CONFIGS, type CheckedConfig } from './configs.ts';
import { PROPERTIES, explore, type ExplorationResult, type PropertyId } from './explore.ts';
import type { Mutation, ProtocolConfig } from './model.ts';

export interface CheckOutcome {
  config: ProtocolConfig;
  /** The note in English (the CLI's); the page shows both languages from CHECKED_CONFIGS. */
  note: string;
  expectHolds: Record<PropertyId, boolean>;
  result: ExplorationResult;
  /** Complete, and every property's verdict is the expected one. */
  asExpected: boolean;
}

export function checkOne(checked: CheckedConfig, mutation: Mutation = 'none', now?: () => number): CheckOutcome {
  const config = mutation === 'none' ? checked.config : { ...checked.config, mutation };
  const t0 = now?.();
  const result = explore(config);
  if (now && t0 !== undefined) result.elapsedMs = Math.round(now() - t0);
  const asExpected = result.complete && PROPERTIES.every((p) => result.verdicts[p].holds === checked.expectHolds[p]);
  return { config, note: checked.note.en, expectHolds: checked.expectHolds, result, asExpected };
}

/** `now` is passed in because the engine has no clock of its own (no globals). */
export function checkAll(mutation: Mutation = 'none', now?: () => number, onOutcome?: (o: CheckOutcome, index: number, total: number) => void): CheckOutcome[] {
  return CHECKED_CONFIGS.map((checked, i) => {
    const o = checkOne(checked, mutation, now);
    onOutcome?.(o, i, CHECKED_CONFIGS.length);
    return o;
  });
}
