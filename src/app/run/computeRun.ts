/**
 * What the run worker computes for a request, as a plain function: the build (scripts/prebuiltRuns.ts)
 * calls it to write the prebuilt run, and its test holds that asset byte-identical to what the
 * worker would transfer.
 */
import { FLAG_LEAK_PROVENANCE, runScenario, type RequestDetails, type RunProgress, type TransformerWeights } from '../../engine/index.ts';
import { runSpecOf, type RunRequest } from '../../engine/runs/index.ts';
import type { RunTransfer } from './runProtocol.ts';
import type { StoredDetails } from './runAsset.ts';

export type ComputedRun = Omit<RunTransfer, 'elapsedMs'>;

/** `transformer`: the trained model's weights, for a run whose decoder is the transformer (the microscope). */
export function computeRun(request: RunRequest, options: { keepDetails?: boolean; onProgress?: (p: RunProgress) => void; transformer?: TransformerWeights } = {}): { run: ComputedRun; details: RequestDetails | null } {
  const result = runScenario(runSpecOf(request), {
    record: true,
    keepDetails: options.keepDetails ?? false,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.transformer ? { transformer: options.transformer } : {}),
  });
  const { details, ...run } = result;
  return { run, details };
}

/**
 * The leaking requests' events and responses, stored with a prebuilt run: they are what the first
 * screen opens on (the leaked answer, its handoff on the stage), so they must not wait for a replay.
 */
export function storedDetailsOf(run: ComputedRun, details: RequestDetails): StoredDetails {
  const byRequest: StoredDetails['byRequest'] = {};
  for (let req = 0; req < run.requests.count; req++) {
    if (!(run.requests.flags[req]! & FLAG_LEAK_PROVENANCE)) continue;
    byRequest[req] = { events: details.events[req] ?? [], response: details.responses[req] ?? null };
  }
  return { words: details.words, byRequest };
}
