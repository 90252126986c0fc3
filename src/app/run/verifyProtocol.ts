/** The protocol checker's worker, declared once: every configuration's outcome as progress, then the time taken. */
import type { CheckOutcome } from '../../engine/protocol/index.ts';
import type { Method } from './rpc.ts';

export type VerifyProtocol = {
  checkAll: Method<null, { elapsedMs: number }, { outcome: CheckOutcome; index: number; total: number }>;
};
