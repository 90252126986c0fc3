/**
 * Who sent a request of the incident replay, and the assumption that placed it: the researcher's
 * requests (researcher-1…3) rest on A6, the two-account reproduction (verify-a-*, verify-b-*) on A7,
 * the over-long customer prompts on A5, batch jobs on A13, ordinary traffic on A1–A4. Other
 * scenarios (the demo, the matrix) are the model's throughout and name no sender.
 */
import { KIND_BATCH, KIND_LONG, KIND_ORDINARY, KIND_REPRODUCTION, KIND_RESEARCHER } from '../../../engine/incident/traffic.ts';
import type { MessageKey } from '../../i18n/i18n.ts';

export interface Sender {
  label: MessageKey;
  /** The assumption that places this sender's requests (its badge in the request picker). */
  assumption: `A${number}`;
}

export const SENDERS: Readonly<Record<number, Sender>> = {
  [KIND_ORDINARY]: { label: 'senderOrdinary', assumption: 'A2' },
  [KIND_LONG]: { label: 'senderLong', assumption: 'A5' },
  [KIND_RESEARCHER]: { label: 'senderResearcher', assumption: 'A6' },
  [KIND_REPRODUCTION]: { label: 'senderReproduction', assumption: 'A7' },
  [KIND_BATCH]: { label: 'senderBatch', assumption: 'A13' },
};

/** The sender of request `kind` in a run of `scenario`, or null outside the incident replay. */
export function senderOf(scenario: string, kind: number): Sender | null {
  return scenario === 'incident' ? (SENDERS[kind] ?? null) : null;
}
