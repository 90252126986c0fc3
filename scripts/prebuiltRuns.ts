/**
 * Vite plugin: the default scenario's run, and that run with each single switch flipped, computed at
 * build time and written into the site as gzip-compressed binaries (src/app/run/runAsset.ts), so the
 * page draws its first picture, and the picture after any one switch, from a file instead of
 * replaying two weeks. The dev server computes it on first request and serves the same
 * bytes. The page learns which runs are prebuilt, and where, from `__PREBUILT_RUNS__` (run key →
 * file, relative to the site), and loads one only for the exact run key it stands for.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { computeRun, storedDetailsOf } from '../src/app/run/computeRun.ts';
import { encodeRunAsset } from '../src/app/run/runAsset.ts';
import { fnv64Hex } from '../src/engine/hash.ts';
import { DEFAULT_TRAFFIC } from '../src/engine/incident/traffic.ts';
import { runKeyOf, type RunRequest } from '../src/engine/runs/index.ts';
import { PROBE_SCALES, probeRequest } from '../src/engine/runs/probe.ts';
import { INCIDENT_SWITCHES, SWITCH_KEYS, overridesOf, type SwitchKey } from '../src/engine/switches.ts';

/** The page's opening run: the incident as it happened at the default traffic (the store's DEFAULT_STATE; a test holds them equal). */
export const DEFAULT_RUN_REQUEST: RunRequest = {
  scenario: 'incident',
  overrides: overridesOf(INCIDENT_SWITCHES),
  traffic: { requestsPerDay: DEFAULT_TRAFFIC.requestsPerDay, tenants: DEFAULT_TRAFFIC.tenants },
};

/**
 * The opening run with one switch flipped: what a person gets by flipping any single switch, or by
 * comparing with one fix (`cmp=`). A live replay of the window takes seconds in the page's worker;
 * from a file it is a fetch (0.1–0.8 MB each, loaded only when asked for).
 */
export function flippedRunRequest(key: SwitchKey): RunRequest {
  return { ...DEFAULT_RUN_REQUEST, overrides: overridesOf({ ...INCIDENT_SWITCHES, [key]: !INCIDENT_SWITCHES[key] }) };
}

/**
 * Prebuilt: the opening run, each single switch flipped from it, the two small scenarios at the
 * incident's switches (a link to `s=demo` or `s=matrix` then needs no worker before its first picture;
 * 10–20 KB each), and the first screen's probe at its opening length.
 */
export const PREBUILT_REQUESTS: readonly RunRequest[] = [
  DEFAULT_RUN_REQUEST,
  ...SWITCH_KEYS.map(flippedRunRequest),
  { scenario: 'demo', overrides: overridesOf(INCIDENT_SWITCHES) },
  { scenario: 'matrix', overrides: overridesOf(INCIDENT_SWITCHES) },
  // The first screen's probe at its opening length: every page at the incident's switches asks for it
  // once its first picture is drawn, and its replay took a worker seconds on two cores.
  probeRequest(PROBE_SCALES.demo.initial, overridesOf(INCIDENT_SWITCHES)),
];

/** Where a prebuilt run lies in the site: named by its run key's hash, so a changed run is a new file. */
export function prebuiltRunFile(runKey: string): string {
  return `runs/${fnv64Hex(runKey)}.run`;
}

/** The uncompressed asset of a run, as the build writes it. */
export function prebuiltRunBytes(request: RunRequest): Uint8Array {
  const { run, details } = computeRun(request, { keepDetails: true });
  return encodeRunAsset(runKeyOf(request), run, details ? storedDetailsOf(run, details) : undefined);
}

/** The file as served: gzip (level 9, no timestamp), which the page inflates with DecompressionStream. */
export function prebuiltRunFileBytes(request: RunRequest): Uint8Array {
  return gzipSync(prebuiltRunBytes(request), { level: 9 });
}

export function inflateRunFile(file: Uint8Array): Uint8Array {
  return gunzipSync(file);
}

export function prebuiltRuns(requests: readonly RunRequest[] = PREBUILT_REQUESTS): Plugin {
  const files = new Map(requests.map((r) => [prebuiltRunFile(runKeyOf(r)), r] as const));
  const manifest = Object.fromEntries(requests.map((r) => [runKeyOf(r), prebuiltRunFile(runKeyOf(r))]));
  const served = new Map<string, Uint8Array>();
  return {
    name: 'stale-pages:prebuilt-runs',
    config: () => ({ define: { __PREBUILT_RUNS__: JSON.stringify(manifest) } }),
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!.replace(/^\/+/, '');
        const request = files.get(path);
        if (!request) return next();
        let bytes = served.get(path);
        if (!bytes) served.set(path, (bytes = prebuiltRunFileBytes(request)));
        res.setHeader('Content-Type', 'application/octet-stream');
        res.setHeader('Cache-Control', 'no-cache');
        res.end(Buffer.from(bytes));
      });
    },
    generateBundle() {
      for (const [fileName, request] of files) this.emitFile({ type: 'asset', fileName, source: prebuiltRunFileBytes(request) });
    },
  };
}
