import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutMilestoneLabels, type MilestoneLabelRequest, type PlacedMilestoneLabel } from './milestoneLabels.ts';
import { MARGIN, milestoneLabelRequests, LABEL_ROWS } from './timelineChart.ts';
import { utcScale } from './utcScale.ts';

// Widths of the page's 12 px bold label type and 12 px badge type, per character, generously.
const measureText = (s: string) => s.length * 7.6;
const measureBadge = (s: string) => s.length * 7.2;

const DAY = 86_400_000;
const START = Date.parse('2026-08-27T00:00:00Z');
const END_MS = 14 * DAY;
const at = (iso: string) => Date.parse(iso);

/** The incident's milestones as the page has them (facts.json), in both languages' longest words. */
const MILESTONES = [
  { id: 'F2', epochMs: at('2026-08-27T00:00:00Z'), dayOnly: true, short: 'affected period begins', when: '27 Aug' },
  { id: 'F2', epochMs: at('2026-09-09T00:00:00Z'), dayOnly: true, short: 'fin de la période concernée', when: '9 sept.' },
  { id: 'F7', epochMs: at('2026-09-08T00:00:00Z'), dayOnly: true, short: 'signalement via HackerOne', when: '8 sept.' },
  { id: 'F8', epochMs: at('2026-09-09T00:00:00Z'), dayOnly: true, short: 'début des vérifications', when: '9 sept.' },
  { id: 'F9', epochMs: at('2026-09-09T00:00:00Z'), dayOnly: true, short: 'reproduite avec deux comptes', when: '9 sept.' },
  { id: 'F10', epochMs: at('2026-09-09T13:22:00Z'), dayOnly: false, short: 'incident déclaré', when: '13:22' },
  { id: 'F11', epochMs: at('2026-09-09T14:00:00Z'), dayOnly: false, short: 'modèle rendu privé', when: '14:00' },
  { id: 'F12', epochMs: at('2026-09-09T14:35:00Z'), dayOnly: false, short: 'cause principale trouvée', when: '14:35' },
  { id: 'F13', epochMs: at('2026-09-09T19:40:00Z'), dayOnly: false, short: 'de nouveau public', when: '19:40' },
].map((m) => ({ ...m, label: `${m.id} ${m.short}`, forms: [`${m.when} ${m.short}`, m.when] }));

function check(placed: PlacedMilestoneLabel[], requests: readonly MilestoneLabelRequest[], width: number) {
  for (const p of placed) {
    expect(p.x, `${p.key} inside on the left`).toBeGreaterThanOrEqual(0);
    expect(p.x + p.width, `${p.key} inside on the right`).toBeLessThanOrEqual(width);
    expect(p.row).toBeGreaterThanOrEqual(0);
    expect(p.row).toBeLessThan(LABEL_ROWS);
  }
  for (let i = 0; i < placed.length; i++)
    for (let j = i + 1; j < placed.length; j++) {
      const [a, b] = [placed[i]!, placed[j]!];
      if (a.row !== b.row) continue;
      const apart = a.x + a.width <= b.x || b.x + b.width <= a.x;
      expect(apart, `${a.text} and ${b.text} overlap in row ${a.row}`).toBe(true);
    }
  // Every milestone is on the chart, alone or counted in a "+n".
  const shown = placed.flatMap((p) => [p.key, ...p.gathered]).sort();
  expect(shown).toEqual(requests.map((r) => r.key).sort());
  // A count says what it counts where its words fit (the page passes them: "+2 more"), else the bare count.
  for (const p of placed) if (p.gathered.length) expect(p.text.endsWith(`+${p.gathered.length} more`) || p.text.endsWith(`+${p.gathered.length}`), p.text).toBe(true);
}

/** The page's words for a label's count (its English catalogue entry). */
const more = (n: number) => `+${n} more`;

describe('milestone labels', () => {
  it('at every width from a phone to a wide screen and every zoom onto the incident window, no two labels overlap and each is inside the drawing', () => {
    for (let width = 320; width <= 1920; width += 10) {
      const x0 = utcScale([START, START + END_MS], [MARGIN.left, width - MARGIN.right]);
      // Zooms from the whole window to an hour around the declaration, and panned windows.
      for (const [from, to] of [
        [0, END_MS],
        [12 * DAY, END_MS],
        [13 * DAY, END_MS],
        [13 * DAY + 13 * 3_600_000, 13 * DAY + 15 * 3_600_000],
        [13 * DAY + 13 * 3_600_000, 13 * DAY + 14 * 3_600_000],
        [7 * DAY, 13.5 * DAY],
        [11.9 * DAY, 12.1 * DAY],
      ] as const) {
        const x = x0.copy().domain([START + from, START + to]);
        const requests = milestoneLabelRequests(MILESTONES, x, width);
        const placed = layoutMilestoneLabels(requests, { left: 2, right: width - 2, rows: LABEL_ROWS, measureText, measureBadge, more });
        check(placed, requests, width);
      }
    }
  });

  it('over the whole window at a laptop\u2019s width, a label holding others says so in words: "+n more"', () => {
    const width = 1150;
    const x = utcScale([START, START + END_MS], [MARGIN.left, width - MARGIN.right]);
    const requests = milestoneLabelRequests(MILESTONES, x, width);
    const placed = layoutMilestoneLabels(requests, { left: 2, right: width - 2, rows: LABEL_ROWS, measureText, measureBadge, more });
    check(placed, requests, width);
    const holding = placed.filter((p) => p.gathered.length > 0);
    expect(holding.length).toBeGreaterThan(0);
    for (const p of holding) expect(p.text).toMatch(new RegExp(`\\+${p.gathered.length} more$`));
  });

  it('on 9 Sep at a laptop\u2019s width, the four times read in words, each in its own box', () => {
    const width = 1150;
    const x = utcScale([START + 13 * DAY, START + END_MS], [MARGIN.left, width - MARGIN.right]);
    const requests = milestoneLabelRequests(MILESTONES, x, width);
    const placed = layoutMilestoneLabels(requests, { left: 2, right: width - 2, rows: LABEL_ROWS, measureText, measureBadge });
    check(placed, requests, width);
    for (const id of ['F10', 'F11', 'F12', 'F13']) {
      const p = placed.find((q) => q.badge === id)!;
      expect(p.gathered).toEqual([]);
      expect(p.text).toMatch(/^\d\d:\d\d \p{L}/u);
    }
  });

  it('random milestones, widths and texts: never an overlap, never outside, never one lost', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 320, max: 2000 }),
        fc.array(fc.record({ anchor: fc.double({ min: -200, max: 2200, noNaN: true }), words: fc.string({ minLength: 1, maxLength: 40 }), id: fc.constantFrom('F2', 'F7', 'F10', 'F12') }), { maxLength: 24 }),
        fc.integer({ min: 1, max: 4 }),
        (width, raw, rows) => {
          const requests = raw.map((r, i) => {
            const anchor = Math.max(MARGIN.left, Math.min(width - MARGIN.right, r.anchor));
            return { key: String(i), anchor, badge: r.id, forms: [`12:00 ${r.words}`, '12:00'], title: `t${i}`, ...(i % 3 === 0 ? { spanEnd: Math.min(width - MARGIN.right, anchor + 80) } : {}) };
          });
          const placed = layoutMilestoneLabels(requests, { left: 2, right: width - 2, rows, measureText, measureBadge, more });
          for (const p of placed) expect(p.x + p.width).toBeLessThanOrEqual(width);
          for (const p of placed) expect(p.x).toBeGreaterThanOrEqual(0);
          for (let i = 0; i < placed.length; i++)
            for (let j = i + 1; j < placed.length; j++) {
              const [a, b] = [placed[i]!, placed[j]!];
              if (a.row === b.row) expect(a.x + a.width <= b.x || b.x + b.width <= a.x).toBe(true);
            }
          expect(placed.flatMap((p) => [p.key, ...p.gathered]).sort()).toEqual(requests.map((r) => r.key).sort());
        },
      ),
      { numRuns: 300 },
    );
  });
});
