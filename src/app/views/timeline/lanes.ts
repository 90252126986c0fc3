/**
 * Everything the timeline shows with a time, and the evidence each rests on. The clock and every lane
 * are the model's (the replay's traffic and what the engine measured on it); only the milestones,
 * from the facts file, are the report's. The chart draws a badge from this data, and a test checks
 * that no timed thing on the page is left without one.
 */
import type { MessageKey } from '../../i18n/i18n.ts';

/** `model`: computed by the engine; `assumptions`: the A-ids whose choices place it in time. */
export type TimedEvidence = { model: true; assumptions: string[] };

export interface Lane {
  key: 'traffic' | 'confidentiality' | 'integrity' | 'admission' | 'compare';
  label: MessageKey;
  evidence: TimedEvidence;
}

/**
 * The lanes, top to bottom: the traffic, then one lane per property the protocol check verifies
 * (invariants.ts), then what the fix changed. Leaked responses are drawn in the confidentiality lane
 * (a leak is a breach the audit saw in the text), so that no two lanes repeat the same marks.
 */
export const LANES: readonly Lane[] = [
  // Arrivals: volume, daily rhythm, tenants, prompt lengths, batch jobs, tests (A1–A7, A13), the
  // gateway's 403s while private (A8) and the over-threshold prompts that keep arriving after 14:00 (A10).
  { key: 'traffic', label: 'laneTraffic', evidence: { model: true, assumptions: ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'A10', 'A13'] } },
  // Breaches measured by the engine on the model's traffic; their times are the traffic's (A5).
  { key: 'confidentiality', label: 'laneConfidentiality', evidence: { model: true, assumptions: ['A5', 'A6', 'A7', 'A11'] } },
  { key: 'integrity', label: 'laneIntegrity', evidence: { model: true, assumptions: ['A5', 'A11'] } },
  { key: 'admission', label: 'laneAdmission', evidence: { model: true, assumptions: ['A5', 'A6'] } },
  { key: 'compare', label: 'laneCompare', evidence: { model: true, assumptions: ['A5', 'A11'] } },
];

export type LaneKey = Lane['key'];

/**
 * The other instants the page shows, beside the lanes: the timeline's clock (the scrubber), the
 * replay's progress, the write time in the page inspector and the offsets in a request's handoff.
 * All come from a simulated run.
 */
export const TIMED_READOUTS: readonly { key: 'clock' | 'progress' | 'pageWriteTime' | 'handoffOffsets'; evidence: TimedEvidence }[] = [
  { key: 'clock', evidence: { model: true, assumptions: ['A1', 'A2', 'A3', 'A5', 'A6', 'A7'] } },
  { key: 'progress', evidence: { model: true, assumptions: ['A2'] } },
  { key: 'pageWriteTime', evidence: { model: true, assumptions: ['A11'] } },
  { key: 'handoffOffsets', evidence: { model: true, assumptions: ['A11'] } },
];
