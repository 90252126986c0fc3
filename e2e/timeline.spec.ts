import type { Page } from '@playwright/test';
import { expect, ready, settled, test } from './fixtures.ts';

type Box = { x: number; y: number; width: number; height: number; text: string };

/** Every piece of text the chart draws (axis ticks shown, lane names, milestone labels), as boxes on the page, and the drawing's own box. */
async function chartText(page: Page): Promise<{ svg: Box; ticks: Box[]; lanes: Box[]; labels: Box[] }> {
  return page.getByTestId('timeline-svg').evaluate((svg) => {
    const box = (el: Element): Box => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height, text: el.textContent ?? '' };
    };
    const shown = (el: Element) => getComputedStyle(el).display !== 'none' && el.closest('[display="none"]') === null;
    return {
      svg: box(svg),
      ticks: [...svg.querySelectorAll('g.axis g.tick text')].filter(shown).map(box),
      lanes: [...svg.querySelectorAll('g.lane text')].map(box),
      // A label's box: its badge and its words (the title is not drawn).
      labels: [...svg.querySelectorAll('g.milestone-labels g.milestone-label')].map((g) => {
        const parts = [...g.querySelectorAll('rect.label-badge, text')].map((el) => el.getBoundingClientRect());
        const x = Math.min(...parts.map((p) => p.left));
        const y = Math.min(...parts.map((p) => p.top));
        return { x, y, width: Math.max(...parts.map((p) => p.right)) - x, height: Math.max(...parts.map((p) => p.bottom)) - y, text: [...g.querySelectorAll('text')].map((t) => t.textContent).join(' ') };
      }),
    };
  });
}

function expectReadable({ svg, ticks, lanes, labels }: Awaited<ReturnType<typeof chartText>>) {
  const inside = (b: Box) => b.x >= svg.x - 0.5 && b.x + b.width <= svg.x + svg.width + 0.5 && b.y >= svg.y - 0.5 && b.y + b.height <= svg.y + svg.height + 0.5;
  for (const b of [...ticks, ...lanes, ...labels]) expect(inside(b), `"${b.text}" cut by the drawing's edge`).toBe(true);
  expect(labels.length).toBeGreaterThan(0);
  for (let i = 0; i < labels.length; i++)
    for (let j = i + 1; j < labels.length; j++) {
      const [a, b] = [labels[i]!, labels[j]!];
      const apart = a.x + a.width <= b.x + 0.5 || b.x + b.width <= a.x + 0.5 || a.y + a.height <= b.y + 0.5 || b.y + b.height <= a.y + 0.5;
      expect(apart, `"${a.text}" overlaps "${b.text}"`).toBe(true);
    }
  // Ticks neither overlap one another.
  const sorted = [...ticks].sort((a, b) => a.x - b.x);
  for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.x, `"${sorted[i - 1]!.text}" runs into "${sorted[i]!.text}"`).toBeGreaterThanOrEqual(sorted[i - 1]!.x + sorted[i - 1]!.width - 0.5);
}

for (const size of [
  { width: 1280, height: 720 },
  { width: 390, height: 844 },
])
  for (const lang of ['en', 'fr'] as const)
    test.describe(`timeline at ${size.width}×${size.height}, ${lang}`, () => {
      test.use({ viewport: size });

      test('milestones in words with their times, no label overlapping another or cut; each lane explained where it is', async ({ page }) => {
        await page.goto(`./?lang=${lang}`);
        await ready(page);
        const svg = page.getByTestId('timeline-svg');
        await svg.scrollIntoViewIfNeeded();
        await expect(svg.locator('g.milestone-label').first()).toBeAttached();
        await settled(page);
        expectReadable(await chartText(page));

        // Zoomed in around the first leak (27 Aug, the first day's band): hours on the axis.
        await page.getByTestId('scrubber').focus();
        for (let i = 0; i < 4; i++) await page.keyboard.press('+');
        await svg.scrollIntoViewIfNeeded();
        // The chart redraws its axis and labels as the zoom lands (the page is not at rest meanwhile).
        await settled(page);
        const zoomed = await chartText(page);
        expect(zoomed.ticks.map((t) => t.text), 'hours on the axis').toContainEqual(expect.stringMatching(/^\d\d:\d\d$/));
        expectReadable(zoomed);

        // The lanes: a legend line under the chart, and each lane's name explains it on focus.
        await expect(page.getByTestId('timeline-lanes-why')).toContainText('155');
        await page.getByTestId('lane-admission').focus();
        await expect(page.getByTestId('lane-tip')).toContainText(lang === 'fr' ? 'Admission' : 'Admission first');
        await page.getByTestId('lane-compare').hover();
        await expect(page.getByTestId('lane-tip')).toContainText(lang === 'fr' ? 'correctif' : 'fix');
      });

      test('chapter 8 on the day itself: 13:22, 14:00, 14:35 and 19:40 in words, none overlapping', async ({ page }) => {
        await page.emulateMedia({ reducedMotion: 'reduce' });
        await page.goto(`./?lang=${lang}&ch=8`);
        await ready(page);
        // The chapter at its stop, the chart scrolled to and drawn for it.
        await expect(page.getByTestId('walkthrough')).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
        const svg = page.getByTestId('timeline-svg');
        await svg.scrollIntoViewIfNeeded();
        await settled(page);
        const chart = await chartText(page);
        const labels = chart.labels.map((l) => l.text);
        // On a laptop each time reads in words; on a phone the day is 250 px wide: each time is there, alone or counted in a "+n".
        // French writes an hour and its minutes « 13 h 22 ».
        const times = lang === 'fr' ? ['13\\sh\\s22', '14\\sh\\s00', '14\\sh\\s35', '19\\sh\\s40'] : ['13:22', '14:00', '14:35', '19:40'];
        if (size.width >= 1280) for (const time of times) expect(labels).toContainEqual(expect.stringMatching(new RegExp(`^F1[0-3] ${time} \\p{L}`, 'u')));
        else expect(labels.join(' ')).toMatch(lang === 'fr' ? /F1[0-3] \d{1,2}\sh\s\d\d/ : /F1[0-3] \d\d:\d\d/);
        expectReadable(chart);
      });
    });
