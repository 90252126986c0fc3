import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeSnapshot, Snapshot } from '../../run/hooks.ts';
import type { StageFrame } from '../../moment/stageFrame.ts';
import { contextPool, flowLayout } from './handoffLayout.ts';
import { drawStagePools } from './stagePools.ts';

/** A canvas stand-in: what putImageData copies lands on `screen`, sub-rectangles included. */
function fakeCanvas(width: number, height: number) {
  const screen = new Uint8ClampedArray(width * height * 4);
  const ctx = {
    canvas: { width, height },
    createImageData: (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }),
    putImageData: (img: { width: number; data: Uint8ClampedArray }, _x: number, _y: number, dx: number, dy: number, dw: number, dh: number) => {
      for (let y = dy; y < dy + dh; y++) screen.set(img.data.subarray((y * img.width + dx) * 4, (y * img.width + dx + dw) * 4), (y * width + dx) * 4);
    },
  };
  return { ctx: ctx as unknown as CanvasRenderingContext2D, screen };
}

const PREFILL = 40;
const DECODE = 90;
const pageArb = fc.record({ state: fc.integer({ min: 0, max: 3 }), owner: fc.integer({ min: -1, max: 3 }), writer: fc.integer({ min: -1, max: 3 }) });
type Page = { state: number; owner: number; writer: number };

function nodeOf(name: string, kind: 'prefill' | 'decode', pages: Page[], changes?: NodeSnapshot['changes']): NodeSnapshot {
  return {
    name,
    kind,
    pageCount: pages.length,
    state: Uint8Array.from(pages.map((p) => p.state)),
    owner: Int32Array.from(pages.map((p) => p.owner)),
    writtenFor: Int32Array.from(pages.map((p) => p.writer)),
    writerTenant: Int16Array.from(pages.map((p) => (p.writer >= 0 ? p.writer % 3 : -1))),
    writeTime: new Float64Array(pages.length),
    ...(changes ? { changes } : {}),
  };
}

const frameOf = (reserved: number[], f: { lit: number; scanned: number; step: 'reserve' | 'scan'; freed: boolean }): StageFrame =>
  ({ step: f.step, decodeNode: 0, prefillNode: 0, reserved, reservedLit: f.lit, scanned: f.scanned, freed: f.freed }) as unknown as StageFrame;

describe('the stage pools', () => {
  it('drawn frame after frame, visiting only the listed and the swept pages, give the pixels of a fresh draw (fast-check)', () => {
    // The context maps as the handoff picture lays them out, at 1,000 CSS px.
    const f = flowLayout(1000);
    const layout = {
      width: f.width,
      height: f.height,
      pools: [contextPool({ name: 'prefill-0', kind: 'prefill', pageCount: PREFILL }, f.prefill), contextPool({ name: 'decode-0', kind: 'decode', pageCount: DECODE }, f.decode)],
    };
    const scale = 1;
    const W = Math.round(layout.width * scale);
    const H = Math.round(layout.height * scale);
    const edits = (pages: number) => fc.array(fc.tuple(fc.nat(pages - 1), pageArb), { maxLength: 12 });
    const step = fc.record({
      prefillEdits: edits(PREFILL),
      decodeEdits: edits(DECODE),
      // Mostly the common case (the previous snapshot drawn, a list given, the same request), now and
      // then each way out of it.
      listed: fc.nat(4).map((k) => k !== 0),
      skipped: fc.nat(4).map((k) => k === 0),
      lit: fc.nat(40),
      scanned: fc.nat(40),
      step: fc.constantFrom('reserve' as const, 'scan' as const),
      freed: fc.nat(4).map((k) => k === 0),
      req: fc.constantFrom(1, 1, 1, null, 2),
    });
    fc.assert(
      fc.property(
        fc.array(pageArb, { minLength: PREFILL, maxLength: PREFILL }),
        fc.array(pageArb, { minLength: DECODE, maxLength: DECODE }),
        fc.uniqueArray(fc.nat(DECODE - 1), { minLength: 1, maxLength: 40 }),
        fc.array(step, { minLength: 1, maxLength: 8 }),
        (prefill0, decode0, reserved, steps) => {
          const drawnOn = fakeCanvas(W, H);
          let prefill = prefill0;
          let decode = decode0;
          let seq = 0;
          for (const st of steps) {
            const nextPrefill = prefill.slice();
            const nextDecode = decode.slice();
            for (const [p, page] of st.prefillEdits) nextPrefill[p] = page;
            for (const [p, page] of st.decodeEdits) nextDecode[p] = page;
            const since = st.skipped ? seq + 1 : seq;
            seq = since + 1;
            const listOf = (e: [number, Page][]) => (st.listed ? Int32Array.from(new Set(e.map(([p]) => p))) : null);
            const snapshot = (withChanges: boolean): Snapshot => ({
              runKey: 'k',
              t: seq,
              phase: 0,
              pageSize: 16,
              inFlight: [],
              nodes: [
                nodeOf('prefill-0', 'prefill', nextPrefill, withChanges ? { seq, since, pages: listOf(st.prefillEdits) } : undefined),
                nodeOf('decode-0', 'decode', nextDecode, withChanges ? { seq, since, pages: listOf(st.decodeEdits) } : undefined),
              ],
            });
            const paint = { req: st.req, requesterTenant: 1, frame: frameOf(reserved, st), scanTrail: 5 };
            drawStagePools(drawnOn.ctx, layout, snapshot(true), paint, scale);
            const fresh = fakeCanvas(W, H);
            drawStagePools(fresh.ctx, layout, snapshot(false), paint, scale);
            expect(Buffer.from(drawnOn.screen).equals(Buffer.from(fresh.screen))).toBe(true);
            prefill = nextPrefill;
            decode = nextDecode;
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});
