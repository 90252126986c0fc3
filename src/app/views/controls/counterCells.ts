/**
 * The outcome tiles' cells: which counts the tiles show, each the whole run's and (the main run's)
 * as of the moment. A pure function of the counters, so a Node test holds the tiles' numbers to
 * `momentOf` (`views/transfer/momentViews.test.ts`) and the page shows the same.
 */
import type { Counters } from '../../../engine/index.ts';
import type { MessageKey } from '../../i18n/messages.ts';

export interface CounterCell {
  /** The tile's name in the catalogue. */
  key: MessageKey;
  /** The whole run's count. */
  value: number;
  /** As of the moment (null: the whole run's alone). */
  shown: number | null;
  testId: string;
}

/** `now`: the counts as of the moment; null: the whole run's alone. A 403 or 499 tile only where the run has one. */
export function counterCells(c: Counters, now: Counters | null): CounterCell[] {
  const cell = (key: MessageKey, of: (x: Counters) => number, testId: string): CounterCell => ({ key, value: of(c), shown: now ? of(now) : null, testId });
  return [
    cell('requests', (x) => x.requests, 'count-requests'),
    cell('answered200', (x) => x.served, 'count-served'),
    cell('rejected400', (x) => x.rejected, 'count-rejected'),
    cell('failed500', (x) => x.errors, 'count-errors'),
    cell('leaked', (x) => x.leaked, 'count-leaked'),
    cell('canaryFound', (x) => x.canaryLeaks, 'count-canary'),
    cell('integrityBreach', (x) => x.integrityBreaches, 'count-breach'),
    cell('wrongOutput', (x) => x.wrongOutputs, 'count-wrong'),
    ...(c.statusCounts['403'] ? [cell('failed403', (x) => x.statusCounts['403'] ?? 0, 'count-403')] : []),
    ...(c.statusCounts['499'] ? [cell('cancelled499', (x) => x.statusCounts['499'] ?? 0, 'count-499')] : []),
  ];
}
