/**
 * What the run worker computes for a request, as a plain function: the build (scripts/prebuiltRuns.ts)
 * calls it to write the prebuilt run, and its test holds that asset byte-identical to what the
 * worker would transfer.
 */
import { FLAG_LEAK_PROVENANCE, runScenario, type RequestDetails, type RunProgress, type TransformerWeights } from '../../engine/index.ts';
import { INCIDENT_CONFIG, prefillInputLimit } from '../../engine/config.ts';
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

/** Prompts longer than this were over the incident deployment's prefill limit: the requests the story opens on. */
const INCIDENT_INPUT_LIMIT = prefillInputLimit(INCIDENT_CONFIG);

/**
 * The leaking requests' events and responses, stored with a prebuilt run: they are what the first
 * screen opens on (the leaked answer, its handoff on the stage), so they must not wait for a replay.
 * With them, every request longer than the incident's prefill limit, leaking or not: a switch flipped
 * from the default keeps the story on the default's first leak, and in a run where that request no
 * longer leaks its detail would otherwise start a two-week replay beside the new picture.
 */
export function storedDetailsOf(run: ComputedRun, details: RequestDetails): StoredDetails {
  const byRequest: StoredDetails['byRequest'] = {};
  for (let req = 0; req < run.requests.count; req++) {
    if (!(run.requests.flags[req]! & FLAG_LEAK_PROVENANCE) && !(run.requests.promptTokens[req]! > INCIDENT_INPUT_LIMIT)) continue;
    byRequest[req] = { events: details.events[req] ?? [], response: details.responses[req] ?? null };
  }
  return { words: details.words, byRequest };
}
