import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeRun, storedDetailsOf } from '../src/app/run/computeRun.ts';
import { FLAG_LEAK_PROVENANCE } from '../src/engine/index.ts';
import { runRequestOf } from '../src/app/run/hooks.ts';
import { decodeRunAsset, encodeRunAsset } from '../src/app/run/runAsset.ts';
import { DEFAULT_STATE } from '../src/app/state/store.ts';
import { runKeyOf } from '../src/engine/runs/index.ts';
import { PROBE_SCALES, probeRequest } from '../src/engine/runs/probe.ts';
import { INCIDENT_SWITCHES, SWITCH_KEYS, overridesOf } from '../src/engine/switches.ts';
import { DEFAULT_RUN_REQUEST, PREBUILT_REQUESTS, flippedRunRequest, inflateRunFile, prebuiltRunBytes, prebuiltRunFile } from './prebuiltRuns.ts';

/** A run as text, each typed array as its kind, length and a hash of its bytes (a deep compare of 13 MB of arrays is too heavy). */
function fingerprint(run: unknown): string {
  return JSON.stringify(run, (_k, v: unknown) =>
    ArrayBuffer.isView(v) ? `${v.constructor.name}(${v.byteLength}) ${createHash('sha256').update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).digest('hex')}` : v,
  );
}

describe('the prebuilt default run', () => {
  const key = runKeyOf(DEFAULT_RUN_REQUEST);
  /** The request the page opens on (the default run's first leak; the replay test checks it leaks there). */
  const DEFAULT_FIRST_LEAK = 178;

  it('is the run the page opens on, the small scenarios are the ones a link to them opens, and the probe the first screen asks for', () => {
    expect(runKeyOf(runRequestOf(DEFAULT_STATE))).toBe(key);
    for (const scenario of ['demo', 'matrix'] as const) expect(PREBUILT_REQUESTS.map(runKeyOf)).toContain(runKeyOf(runRequestOf({ ...DEFAULT_STATE, scenario })));
    // The first screen's probe, as the page asks for it at the opening's switches and length.
    expect(PREBUILT_REQUESTS.map(runKeyOf)).toContain(runKeyOf(probeRequest(PROBE_SCALES.demo.initial, overridesOf(DEFAULT_STATE.switches))));
  });

  it('small scenarios: each file is byte-identical to a live replay', () => {
    for (const request of PREBUILT_REQUESTS.filter((r) => r.scenario !== 'incident')) {
      const computed = computeRun(request, { keepDetails: true });
      const live = encodeRunAsset(runKeyOf(request), computed.run, storedDetailsOf(computed.run, computed.details!));
      expect(Buffer.compare(Buffer.from(prebuiltRunBytes(request)), Buffer.from(live))).toBe(0);
      const built = join(process.cwd(), 'dist', prebuiltRunFile(runKeyOf(request)));
      if (existsSync(built)) expect(Buffer.compare(Buffer.from(inflateRunFile(readFileSync(built))), Buffer.from(live))).toBe(0);
    }
  });

  it('is byte-identical to a live replay as the worker runs it, and decodes to that run', () => {
    const asset = prebuiltRunBytes(DEFAULT_RUN_REQUEST);
    let reports = 0;
    const live = computeRun(DEFAULT_RUN_REQUEST, { keepDetails: true, onProgress: () => reports++ });
    expect(reports).toBeGreaterThan(0);
    const liveBytes = encodeRunAsset(key, live.run, storedDetailsOf(live.run, live.details!));
    expect(asset.length).toBe(liveBytes.length);
    expect(Buffer.compare(Buffer.from(asset), Buffer.from(liveBytes))).toBe(0);
    const decoded = decodeRunAsset(asset.buffer as ArrayBuffer);
    expect(decoded.runKey).toBe(key);
    expect(fingerprint(decoded.run) === fingerprint(live.run)).toBe(true);
    // The leaking requests' details ride along (with the few other requests over the prefill limit),
    // equal to what the worker would answer for them.
    const stored = Object.keys(decoded.details!.byRequest).map(Number);
    const leaking = stored.filter((req) => live.run.requests.flags[req]! & FLAG_LEAK_PROVENANCE);
    expect(leaking).toHaveLength(155);
    expect(stored).toHaveLength(158);
    expect(live.run.leaks[0]!.request).toBe(DEFAULT_FIRST_LEAK);
    for (const req of stored) expect(JSON.stringify(decoded.details!.byRequest[req])).toBe(JSON.stringify({ events: live.details!.events[req] ?? [], response: live.details!.responses[req] ?? null }));
    // A site built earlier must hold this very run: a stale file fails here.
    const built = join(process.cwd(), 'dist', prebuiltRunFile(key));
    if (existsSync(built)) expect(Buffer.compare(Buffer.from(inflateRunFile(readFileSync(built))), Buffer.from(asset))).toBe(0);
  }, 180_000); // two replays of the two weeks, on two shared cores

  it('holds, for every switch, the run the page asks for when that one switch is flipped from the default', () => {
    const keys = PREBUILT_REQUESTS.map(runKeyOf);
    for (const k of SWITCH_KEYS) {
      const flipped = runKeyOf(runRequestOf({ ...DEFAULT_STATE, switches: { ...INCIDENT_SWITCHES, [k]: !INCIDENT_SWITCHES[k] } }));
      expect(flipped, k).toBe(runKeyOf(flippedRunRequest(k)));
      expect(keys, k).toContain(flipped);
      expect(flipped, k).not.toBe(key);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  // A built site's flipped runs must each be what the worker computes now: a stale file fails here.
  // Without a build there is nothing to hold (the default's test above holds the build's path to the worker's).
  const built = (k: (typeof SWITCH_KEYS)[number]) => join(process.cwd(), 'dist', prebuiltRunFile(runKeyOf(flippedRunRequest(k))));
  it.skipIf(!SWITCH_KEYS.every((k) => existsSync(built(k))))('flipped runs of a built site: each file byte-identical to a live replay as the worker runs it', () => {
    for (const k of SWITCH_KEYS) {
      const request = flippedRunRequest(k);
      const live = computeRun(request, { keepDetails: true });
      const liveBytes = encodeRunAsset(runKeyOf(request), live.run, storedDetailsOf(live.run, live.details!));
      expect(Buffer.compare(Buffer.from(inflateRunFile(readFileSync(built(k)))), Buffer.from(liveBytes)), k).toBe(0);
      // The story stays on the default's first leak after a flip: its detail is in the file, leaking or not.
      expect(Object.keys(storedDetailsOf(live.run, live.details!).byRequest), k).toContain(String(DEFAULT_FIRST_LEAK));
    }
  }, 900_000); // twelve replays of the two weeks, on two shared cores

  it('refuses a file that is not a run asset, saying why', () => {
    expect(() => decodeRunAsset(new TextEncoder().encode('<!doctype html><html>').buffer as ArrayBuffer)).toThrow(/not a run asset/);
    const asset = encodeRunAsset('k', { ...computeRun({ scenario: 'demo', overrides: {} }).run });
    expect(() => decodeRunAsset(asset.slice(0, asset.length - 64).buffer as ArrayBuffer)).toThrow(/truncated/);
  });
});
