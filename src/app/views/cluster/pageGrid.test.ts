import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeSnapshot } from '../../run/hooks.ts';
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from '../../../engine/kvPool.ts';
import { tenantRgb } from '../../ui/palette.ts';
import { drawPageGrid, gridLayout, setGridRedraw, type GridStyle } from './pageGrid.ts';
import { REL_FOREIGN, REL_OTHER, REL_OWN, REL_PLACEHOLDER, REL_RESERVED, blockTableRelation, relationOf } from './relation.ts';

/** A canvas stand-in: what putImageData copies lands on `screen`, sub-rectangles included. */
function fakeCanvas(width: number, height: number) {
  const screen = new Uint8ClampedArray(width * height * 4);
  const ctx = {
    createImageData: (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }),
    putImageData: (img: { width: number; data: Uint8ClampedArray }, _x: number, _y: number, dx = 0, dy = 0, dw = img.width, dh = img.data.length / 4 / img.width) => {
      for (let y = dy; y < dy + dh; y++) screen.set(img.data.subarray((y * img.width + dx) * 4, (y * img.width + dx + dw) * 4), (y * width + dx) * 4);
    },
  };
  return { ctx: ctx as unknown as CanvasRenderingContext2D, screen };
}

const PAGES = 300;
const pageArb = fc.record({ state: fc.integer({ min: 0, max: 3 }), owner: fc.integer({ min: -1, max: 3 }), writer: fc.integer({ min: -1, max: 3 }) });
const nodeArb = fc.array(pageArb, { minLength: PAGES, maxLength: PAGES });

function nodeOf(pages: { state: number; owner: number; writer: number }[]): NodeSnapshot {
  return {
    name: 'decode-0',
    kind: 'decode',
    pageCount: pages.length,
    state: Uint8Array.from(pages.map((p) => p.state)),
    owner: Int32Array.from(pages.map((p) => p.owner)),
    writtenFor: Int32Array.from(pages.map((p) => p.writer)),
    writerTenant: Int16Array.from(pages.map((p) => (p.writer >= 0 ? p.writer % 2 : -1))),
    writeTime: new Float64Array(pages.length),
  };
}

describe('page grid drawing', () => {
  it('repainting only the changed pages leaves the same pixels as repainting every page, step after step', () => {
    const layout = gridLayout(PAGES, 96);
    fc.assert(
      fc.property(fc.array(nodeArb, { minLength: 2, maxLength: 5 }), fc.option(fc.record({ req: fc.integer({ min: 0, max: 3 }), placeholder: fc.boolean() }), { nil: null }), (steps, focus) => {
        const style: GridStyle = { background: [244, 242, 238], dark: false, focus };
        const dirty = fakeCanvas(layout.width, layout.height);
        for (const pages of steps) {
          const node = nodeOf(pages);
          setGridRedraw('dirty');
          drawPageGrid(dirty.ctx, node, layout, style);
          const full = fakeCanvas(layout.width, layout.height);
          setGridRedraw('full');
          drawPageGrid(full.ctx, node, layout, style);
          expect(Buffer.from(dirty.screen).equals(Buffer.from(full.screen))).toBe(true);
        }
        setGridRedraw('dirty');
      }),
      { numRuns: 60 },
    );
  });

  it('visiting only the pages the change list names leaves the same pixels, and finds the same placeholder, as a full redraw', () => {
    const layout = gridLayout(PAGES, 96);
    const edit = fc.array(fc.tuple(fc.nat(PAGES - 1), pageArb), { maxLength: 25 });
    // Each step: edits to the pages, extra pages listed that did not change, and whether the list
    // is given (null: look at every page), and whether the canvas missed a snapshot in between.
    const step = fc.record({ edits: edit, extra: fc.array(fc.nat(PAGES - 1), { maxLength: 5 }), listed: fc.boolean(), skipped: fc.boolean(), again: fc.boolean() });
    fc.assert(
      fc.property(nodeArb, fc.array(step, { minLength: 1, maxLength: 8 }), fc.record({ req: fc.integer({ min: 0, max: 3 }), placeholder: fc.boolean() }), (initial, steps, focus) => {
        const style: GridStyle = { background: [244, 242, 238], dark: false, focus };
        const listed = fakeCanvas(layout.width, layout.height);
        let pages = initial;
        let seq = 0;
        setGridRedraw('dirty');
        drawPageGrid(listed.ctx, { ...nodeOf(pages), changes: { seq, since: -1, pages: null } }, layout, style);
        for (const st of steps) {
          const next = pages.slice();
          for (const [p, page] of st.edits) next[p] = page;
          const changed = [...new Set([...st.edits.map(([p]) => p), ...st.extra])];
          const since = st.skipped ? seq + 1 : seq;
          seq = since + 1;
          const node = { ...nodeOf(next), changes: { seq, since, pages: st.listed ? Int32Array.from(changed) : null } };
          const report = drawPageGrid(listed.ctx, node, layout, style);
          // The same snapshot drawn a second time: nothing to visit, the same placeholder.
          if (st.again) expect(drawPageGrid(listed.ctx, node, layout, style)).toEqual({ repainted: 0, placeholderPage: report.placeholderPage, full: false });
          const full = fakeCanvas(layout.width, layout.height);
          setGridRedraw('full');
          const fullReport = drawPageGrid(full.ctx, nodeOf(next), layout, style);
          setGridRedraw('dirty');
          expect(report.placeholderPage).toBe(fullReport.placeholderPage);
          expect(Buffer.from(listed.screen).equals(Buffer.from(full.screen))).toBe(true);
          pages = next;
        }
      }),
      { numRuns: 80 },
    );
  });

  it('repaints nothing when nothing changed, and exactly the pages whose look changed', () => {
    const layout = gridLayout(PAGES, 96);
    const pages = Array.from({ length: PAGES }, (_, i) => ({ state: 2, owner: -1, writer: i % 3 }));
    const { ctx } = fakeCanvas(layout.width, layout.height);
    const style: GridStyle = { background: [244, 242, 238], dark: false, focus: { req: 7, placeholder: true } };
    expect(drawPageGrid(ctx, nodeOf(pages), layout, style).full).toBe(true);
    expect(drawPageGrid(ctx, nodeOf(pages), layout, style).repainted).toBe(0);
    // Request 7 reserves pages 10–14 and its placeholder is written into page 10.
    const next = pages.map((p, i) => (i >= 10 && i < 15 ? { state: 1, owner: 7, writer: i === 10 ? 7 : p.writer } : p));
    const report = drawPageGrid(ctx, nodeOf(next), layout, style);
    expect(report.repainted).toBe(5);
    expect(report.placeholderPage).toBe(10);
  });
});

describe('what a page looks like', () => {
  /** Each page's cell as drawn: its pixels, [r, g, b] each. */
  function cells(pages: { state: number; owner: number; writer: number }[], focus: GridStyle['focus']) {
    const layout = gridLayout(pages.length, 96);
    const { ctx, screen } = fakeCanvas(layout.width, layout.height);
    setGridRedraw('full');
    drawPageGrid(ctx, nodeOf(pages), layout, { background: [244, 242, 238], dark: false, focus });
    setGridRedraw('dirty');
    return pages.map((_, p) => {
      const x0 = (p % layout.cols) * layout.cell;
      const y0 = Math.floor(p / layout.cols) * layout.cell;
      const px: string[] = [];
      for (let y = y0; y < y0 + layout.cell; y++) for (let x = x0; x < x0 + layout.cell; x++) px.push([...screen.subarray((y * layout.width + x) * 4, (y * layout.width + x) * 4 + 3)].join(','));
      return px;
    });
  }

  it('a stale page still holds its writer\u2019s KV: drawn checked in its tenant\u2019s colour, never like a free page that holds nothing, with a request selected or not', () => {
    // Writer 1 is tenant 1 (nodeOf: writer % 2); page 3 belongs to request 3, selected below, so pages 0–2 are "not its page".
    const pages = [
      { state: PAGE_ZERO, owner: -1, writer: -1 },
      { state: PAGE_STALE, owner: -1, writer: 1 },
      { state: PAGE_LIVE, owner: 2, writer: 1 },
      { state: PAGE_CLEARED, owner: -1, writer: -1 },
    ];
    const tenant = tenantRgb(1).join(',');
    const [zero, stale, live, cleared] = cells(pages, null);
    expect(stale).not.toEqual(zero);
    expect(stale).not.toEqual(cleared);
    expect(stale).toContain(tenant);
    expect(live!.every((c) => c === tenant)).toBe(true);
    // Checked: the tenant's colour and the background alternate.
    expect(stale!.filter((c) => c === tenant).length).toBeLessThan(stale!.length);
    const focused = cells(pages, { req: 3, placeholder: false });
    expect(focused[1]).not.toEqual(focused[0]);
    expect(focused[1]).not.toEqual(focused[3]);
  });
});

describe('what a page is to the selected request', () => {
  it('names its own, the placeholder, another request\u2019s KV, never written, and not its page', () => {
    const node = nodeOf([
      { state: 1, owner: 2, writer: 2 },
      { state: 1, owner: 2, writer: 1 },
      { state: 1, owner: 2, writer: -1 },
      { state: 2, owner: -1, writer: 2 },
    ]);
    expect([0, 1, 2, 3].map((p) => relationOf(node, p, { req: 2, placeholder: false }))).toEqual([REL_OWN, REL_FOREIGN, REL_RESERVED, REL_OTHER]);
    expect(relationOf(node, 0, { req: 2, placeholder: true })).toBe(REL_PLACEHOLDER);
    // In the block table, a page keeps its relation after the request freed it.
    expect(blockTableRelation(node, 3, { req: 2, placeholder: true })).toBe(REL_PLACEHOLDER);
  });
});
