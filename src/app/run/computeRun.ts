/**
 * What the run worker computes for a request, as a plain function: the build (scripts/prebuiltRuns.ts)
 * calls it to write the prebuilt run, and its test holds that asset byte-identical to what the
 * worker would transfer.
 */
import { runScenario, type RequestDetails, type RunProgress } from '../../engine/index.ts';
import { runSpecOf, type RunRequest } from '../../engine/runs/index.ts';
import type { RunTransfer } from './runProtocol.ts';

export type ComputedRun = Omit<RunTransfer, 'elapsedMs'>;

export function computeRun(request: RunRequest, options: { keepDetails?: boolean; onProgress?: (p: RunProgress) => void } = {}): { run: ComputedRun; details: RequestDetails | null } {
  const result = runScenario(runSpecOf(request), { record: true, keepDetails: options.keepDetails ?? false, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  const { details, ...run } = result;
  return { run, details };
}
