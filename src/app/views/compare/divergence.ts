/**
 * Two runs of the same traffic on the same clock, as it happened and with a fix: what each request
 * got in each, and the first request whose outcome differs. Computed from the runs' request tables;
 * the sentence the page shows ("first different outcome: q000178, 200 + leak vs 400") is built from it.
 */
import { FLAG_LEAK_PROVENANCE, FLAG_WRONG_OUTPUT, type RequestTable } from '../../../engine/run.ts';

type Tables = { requests: RequestTable };

export interface Outcome {
  status: number;
  leaked: boolean;
  /** Answered 200 but not what the model answers over the prompt alone. */
  wrong: boolean;
}

export function outcomeOf(run: Tables, req: number): Outcome {
  const f = run.requests.flags[req]!;
  return { status: run.requests.status[req]!, leaked: (f & FLAG_LEAK_PROVENANCE) !== 0, wrong: (f & FLAG_WRONG_OUTPUT) !== 0 };
}

export const sameOutcome = (a: Outcome, b: Outcome) => a.status === b.status && a.leaked === b.leaked && a.wrong === b.wrong;

export interface Divergence {
  req: number;
  /** Simulated ms: the earlier of the two responses. */
  t: number;
  asItHappened: Outcome;
  withFix: Outcome;
}

/** Every request the two runs answer differently, in time order. */
export function differences(a: Tables, b: Tables): Divergence[] {
  const out: Divergence[] = [];
  const n = Math.min(a.requests.count, b.requests.count);
  for (let i = 0; i < n; i++) {
    const x = outcomeOf(a, i);
    const y = outcomeOf(b, i);
    if (!sameOutcome(x, y)) out.push({ req: i, t: Math.min(a.requests.finishedAt[i]!, b.requests.finishedAt[i]!), asItHappened: x, withFix: y });
  }
  return out.sort((p, q) => p.t - q.t || p.req - q.req);
}

/** The first request the two runs answer differently, or null when they agree on every one. */
export function firstDivergence(a: Tables, b: Tables): Divergence | null {
  return differences(a, b)[0] ?? null;
}
