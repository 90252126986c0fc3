/** Messages between the verify panel and its worker. */
import type { CheckOutcome } from '../../engine/protocol/index.ts';

export type VerifyRequest = { kind: 'run'; id: number };

export type VerifyResponse =
  | { kind: 'outcome'; id: number; index: number; total: number; outcome: CheckOutcome }
  | { kind: 'done'; id: number; elapsedMs: number }
  | { kind: 'error'; id: number; message: string };
