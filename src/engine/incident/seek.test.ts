import { describe, expect, it } from 'vitest';
import { PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from '../kvPool.ts';
import { pageTimelineBytes } from '../pages.ts';
import { RunTimeline } from '../run.ts';
import { PHASE_FIXED, PHASE_INCIDENT, replayIncident } from './replay.ts';
import { T_PRIVATE, T_PUBLIC, T_WINDOW_END } from './timeline.ts';

const result = replayIncident({ traffic: { requestsPerDay: 60, overThresholdBeforePrivate: 12, batchSize: 12, seed: 'seek' } });
const timeline = new RunTimeline(result);

/** A fingerprint of everything stateAt returns (deep equality on 50k-element arrays is slow). */
function fingerprint(t: number, fromStart: boolean): string {
  const s = timeline.stateAt(t, fromStart);
  let h = 0x811c9dc5;
  const mix = (a: ArrayLike<number>) => {
    for (let i = 0; i < a.length; i++) h = Math.imul(h ^ (a[i]! | 0), 0x01000193);
  };
  mix(s.pages.state);
  mix(s.pages.writer);
  mix(s.pages.owner);
  mix(s.pages.writeTime);
  mix(s.inFlight);
  mix(s.crossingNow);
  return `${s.phase}:${s.gateway?.name}:${s.pages.state.length}:${s.readsSoFar}:${h >>> 0}`;
}

describe('seeking the incident window', () => {
  it('rebuilds the same state from a checkpoint as from the start, in any order', () => {
    expect(result.timelines!.incident.checkpointCount).toBeGreaterThan(1);
    let x = 12345;
    for (let i = 0; i < 25; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const t = (x / 2 ** 32) * T_WINDOW_END;
      expect(fingerprint(t, false)).toBe(fingerprint(t, true));
    }
  });

  it('shows a leaking request in flight, its pages live and owned, and its read crossing tenants', () => {
    // One whose block table holds other tenants' pages (SGLang's list may hand a leak zero pages, its
    // foreign words coming from the placeholder page alone).
    const leak = result.leaks.find((l) => l.foreignPages > 0)!;
    const mid = leak.finishedAt - 1;
    const s = timeline.stateAt(mid);
    expect(s.phase).toBe(PHASE_INCIDENT);
    expect(s.gateway).toBeNull();
    expect(Array.from(s.inFlight)).toContain(leak.request);
    const crossing = Array.from(s.crossingNow).map((k) => result.reads.req[k]);
    expect(crossing).toContain(leak.request);
    const node = s.nodes[1 + result.requests.decodeNode[leak.request]!]!;
    let owned = 0;
    for (let p = node.pageOffset; p < node.pageOffset + node.pageCount; p++) {
      if (s.pages.owner[p] === leak.request) {
        owned++;
        expect(s.pages.state[p]).toBe(PAGE_LIVE);
      }
    }
    // Its pre-allocated pages, and the one a decode step takes if its 32 output tokens cross into a new 64-token page.
    expect(owned - leak.pagesReserved).toBeGreaterThanOrEqual(0);
    expect(owned - leak.pagesReserved).toBeLessThanOrEqual(1);
    // After the response its pages are free again, still holding what they held: stale, not zero.
    const after = timeline.stateAt(leak.finishedAt);
    expect(Array.from(after.inFlight)).not.toContain(leak.request);
    expect(after.pages.state.subarray(node.pageOffset, node.pageOffset + node.pageCount).includes(PAGE_STALE)).toBe(true);
  });

  it('switches to the fresh fixed deployment at 19:40, its pages zero at start-up', () => {
    const closed = timeline.stateAt(T_PRIVATE + 60_000);
    expect(closed.gateway?.status).toBe(403);
    // While the model is private the incident deployment's pools are still what is shown.
    expect(closed.phase).toBe(PHASE_INCIDENT);
    const s = timeline.stateAt(T_PUBLIC);
    expect(s.phase).toBe(PHASE_FIXED);
    expect(s.gateway).toBeNull();
    expect(s.nodes.map((n) => n.name)).toEqual(['prefill-0', 'decode-0', 'decode-1']);
    expect(s.pages.state.every((v) => v === PAGE_ZERO)).toBe(true);
    expect(timeline.stateAt(T_WINDOW_END).pages.state.some((v) => v === PAGE_STALE)).toBe(true);
  });

  it('keeps the timeline small', () => {
    expect(pageTimelineBytes(result.timelines!.incident)).toBeLessThan(64 * 1024 * 1024);
  });
});
