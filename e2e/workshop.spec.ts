/**
 * A workshop on a laptop or a phone: a chapter opened by link is the chapter reached by Next, the
 * scrubber scrubs, the page fits a phone, and the page passes axe in light and dark (that the
 * walkthrough shows what it talks about, with a picture of every chapter: inview.spec.ts).
 *
 * Every picture and measurement is taken once, when the page says it is at rest (`settled`:
 * e2e/fixtures.ts, src/app/state/settled.ts), after the state the action leads to (a chapter at its
 * stop, a tab selected); the walkthrough plays with reduced motion wherever motion is not the point.
 */
import type { Page, Request } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { expect as baseExpect, openExplore, ready, settled, test } from './fixtures.ts';
import { pixelDifference } from './pixels.ts';

/** Upper bounds for a loaded machine: every wait is for a state the page declares. */
const expect = baseExpect.configure({ timeout: 60_000 });
const panel = (page: Page) => page.getByTestId('walkthrough');
const SIZES = [
  { name: 'laptop', width: 1280, height: 720 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const shots = 'test-results/workshop';

/** Chapter n at its stop: its question, or its end. */
async function atStop(page: Page, n: number) {
  // The walkthrough's code loads when it is opened; the chapter's runs are computed.
  await expect(panel(page)).toHaveAttribute('data-chapter', String(n), { timeout: 90_000 });
  await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
}

/**
 * Answers a chapter's checkpoint with its right option's number key, as a room's presenter would.
 * At rest first: the key listener follows the panel's state a frame after it renders.
 */
async function answerCheckpoint(page: Page, index: number) {
  await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint');
  await settled(page);
  await page.keyboard.press(String(index + 1));
  await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
}

/** Where the story, the views and the timeline are on the page (not in the viewport: element shots scroll to them). */
function placeOf(page: Page): Promise<string> {
  return page.evaluate(() =>
    ['.story', '.views', '.timeline']
      .map((s) => {
        const r = document.querySelector(s)?.getBoundingClientRect();
        return r ? `${r.left + scrollX},${r.top + scrollY},${r.width},${r.height}` : '-';
      })
      .join(' '),
  );
}

/** What the scrub bar shows, in words: a failure names what differs, not only how many pixels. */
const barState = (page: Page) =>
  page.locator('.scrub-bar').evaluate((bar) => ({
    counter: bar.querySelector('.leak-counter')?.textContent,
    clock: bar.querySelector('.clock')?.textContent,
    window: (bar.querySelector('.scrub-window') as HTMLElement | null)?.style.cssText,
    handle: (bar.querySelector('.scrub-handle') as HTMLElement | null)?.style.cssText,
    focused: bar.contains(document.activeElement) ? document.activeElement?.className : null,
  }));

/**
 * Chapter n as it stands once at rest: the situation (the URL without its chapter: at rest, the
 * URL's debounced write has landed), the caption, the status, the scrub bar in words, where the parts
 * are, and one picture each of the views, the timeline and the scrub bar (not the panel: focus and its
 * scroll position differ by design).
 */
async function chapterAtRest(page: Page, n: number, name: string) {
  await atStop(page, n);
  await ready(page);
  await page.mouse.move(0, 0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await settled(page);
  const q = new URL(page.url()).searchParams;
  q.delete('ch');
  const words = { situation: q.toString(), caption: await page.getByTestId('walk-caption').textContent(), status: await panel(page).getAttribute('data-status') };
  const bar = await barState(page);
  const place = await placeOf(page);
  // The scrub bar is sticky: where it sits during a capture depends on how the capture scrolled, and
  // the timeline's top edge, at a fractional y, shows a sliver of whatever is above it. Held in its
  // place while the three pictures are taken (sticky is in flow, so nothing else moves).
  await page.locator('.scrub-bar').evaluate((el: HTMLElement) => (el.style.position = 'static'));
  await settled(page);
  const pictures = [
    await page.locator('.views').screenshot({ animations: 'disabled', path: `${shots}/${name}-views.png` }),
    await page.locator('.timeline').screenshot({ animations: 'disabled', path: `${shots}/${name}-timeline.png` }),
    await page.locator('.scrub-bar').screenshot({ animations: 'disabled', path: `${shots}/${name}-scrub-bar.png` }),
  ];
  await page.locator('.scrub-bar').evaluate((el: HTMLElement) => (el.style.position = ''));
  return { words, bar, place, pictures };
}

test.describe('a chapter by link is the chapter by Next', () => {
  // Reduced motion: a chapter comes to its stop as soon as its runs are computed. Tall enough that the
  // views (947 px in chapter 9) fit: a shot of an element taller than the viewport stretches the page
  // for the capture, and the layout answering that resize can move it.
  test.use({ reducedMotion: 'reduce', viewport: { width: 1280, height: 1100 } });

  /**
   * Two runs of chapters, each walked by Next on one page (as a presenter goes, each question answered),
   * then each chapter opened by its link and held to what Next showed: chapter 2 to 5 from chapter 1,
   * 6 to 10 from chapter 5 (by link: itself the chapter by Next, checked in the first run).
   */
  for (const [first, last] of [
    [2, 5],
    [6, CHAPTERS.length],
  ] as const) {
    test(`chapters ${first} to ${last}: by link, the same situation and the same picture as by Next`, async ({ page }) => {
      test.setTimeout(240_000);
      await page.goto(`./?ch=${first - 1}`);
      const byNext = new Map<number, Awaited<ReturnType<typeof chapterAtRest>>>();
      for (let n = first; n <= last; n++) {
        const prev = CHAPTERS[n - 2]!;
        await atStop(page, n - 1);
        if (prev.checkpoint && (await panel(page).getAttribute('data-status')) === 'checkpoint') await answerCheckpoint(page, prev.checkpoint.options.findIndex((o) => o.id === prev.checkpoint!.answer));
        await page.getByTestId('walk-next').click();
        byNext.set(n, await chapterAtRest(page, n, `ch${n}-by-next`));
      }
      // The links opened in a new tab, as someone given one does: the walk's answers, kept for its own tab
      // (sessionStorage), are not there.
      // (Its requests are held to the page's origin by the fixture, as the page's are.)
      const tab = await page.context().newPage();
      for (let n = first; n <= last; n++) {
        await tab.goto(`./?ch=${n}`);
        const byLink = await chapterAtRest(tab, n, `ch${n}-by-link`);
        const next = byNext.get(n)!;
        expect(byLink.words, `chapter ${n}`).toEqual(next.words);
        expect(byLink.bar, `chapter ${n}: scrub bar by link and by Next`).toEqual(next.bar);
        const names = ['views', 'timeline', 'scrub bar (counter, clock, track)'];
        const places = `story, views, timeline by Next ${next.place}; by link ${byLink.place}`;
        for (let k = 0; k < 3; k++) {
          // Each part's own pixels: its shots' outer rows blend in their neighbours at fractional positions
          // (the timeline's first row, the scrub bar's foot or the page behind it, 813 px of chapter 8's once).
          const { differing } = await pixelDifference(page, byLink.pictures[k]!, next.pictures[k]!, { edge: 1 });
          expect(differing, `chapter ${n}: ${names[k]} by link and by Next (${JSON.stringify(byLink.bar)}; ${places})`).toBe(0);
        }
      }
    });
  }
});

for (const width of [360, 390, 430]) {
  test(`no horizontal scroll at ${width} px, with and without the walkthrough`, async ({ page }) => {
    await page.setViewportSize({ width, height: 844 });
    await page.goto('./');
    await ready(page);
    // Measured at rest: a view still loading is not the page a phone keeps.
    await settled(page);
    const overflow = () => page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth, wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && getComputedStyle(e).position !== 'fixed').slice(0, 5).map((e) => `${e.tagName}.${e.className}`) }));
    let o = await overflow();
    expect(o.doc, `page wider than ${width}: ${o.wide.join(', ')}`).toBeLessThanOrEqual(o.win);
    await page.getByTestId('walkthrough-toggle').click();
    await atStop(page, 1);
    await settled(page);
    o = await overflow();
    expect(o.doc, `with the walkthrough: ${o.wide.join(', ')}`).toBeLessThanOrEqual(o.win);
  });
}

/**
 * The page at rest but for the zoom code a test holds back, which keeps the page from saying so
 * (state/settled.ts counts d3-zoom as loading): no other request in flight, no run recomputing, the
 * first screen's stage not waiting for its request (when it arrives everything below moves down), the
 * fonts loaded, nothing busy, then the chart's place, the scroll and the page's height unchanged over
 * five frames, as settled.ts counts them.
 */
async function atRestButZoom(page: Page, inFlight: ReadonlySet<Request>) {
  await expect.poll(() => [...inFlight].map((r) => r.url()), { timeout: 90_000 }).toEqual([]);
  await expect(page.locator('main')).not.toHaveAttribute('data-recomputing', /.*/, { timeout: 90_000 });
  await expect(page.locator('.story-picture [role="status"], .picture-pending, [aria-busy="true"]')).toHaveCount(0, { timeout: 90_000 });
  const still = await page.evaluate(
    () =>
      new Promise<boolean>((resolve) => {
        let last = '';
        let same = 0;
        let frames = 0;
        const frame = () => {
          const r = document.querySelector('[data-testid="timeline-svg"]')!.getBoundingClientRect();
          const now = `${document.fonts.status},${r.left + scrollX},${r.top + scrollY},${r.width},${r.height},${scrollX},${scrollY},${document.documentElement.scrollHeight}`;
          same = now === last && document.fonts.status === 'loaded' ? same + 1 : 0;
          last = now;
          if (same >= 5) resolve(true);
          else if (++frames > 1200) resolve(false);
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
  );
  expect(still, 'the chart came to rest').toBe(true);
}

test.describe('the scrubber', () => {
  for (const target of ['scrub-track', 'timeline-svg'] as const) {
    test(`dragging on the ${target === 'scrub-track' ? 'track' : 'chart'} moves the time monotonically with the pointer`, async ({ page }) => {
      await page.goto('./?t=0');
      await ready(page);
      // The first screen sits above the timeline: a pointer only drags what is on screen, where it
      // stays. At rest before and after the scroll, the box taken is where the target stays.
      await settled(page);
      await page.getByTestId(target).scrollIntoViewIfNeeded();
      await settled(page);
      const box = (await page.getByTestId(target).boundingBox())!;
      // On the chart, the plot starts right of the lane names.
      const x0 = box.x + (target === 'timeline-svg' ? 130 : 4);
      const x1 = box.x + box.width - 16;
      const y = box.y + box.height / 2;
      const now = async () => Number(await page.getByTestId('scrubber').getAttribute('aria-valuenow'));
      await page.mouse.move(x0, y);
      await page.mouse.down();
      const seen = [await now()];
      for (let i = 1; i <= 8; i++) {
        await page.mouse.move(x0 + ((x1 - x0) * i) / 8, y, { steps: 2 });
        seen.push(await now());
      }
      await page.mouse.up();
      for (let i = 1; i < seen.length; i++) expect(seen[i], `step ${i}: ${seen.join(', ')}`).toBeGreaterThan(seen[i - 1]!);
      // Back left: the time follows the pointer back.
      await page.mouse.move(x1, y);
      await page.mouse.down();
      await page.mouse.move(x0 + (x1 - x0) / 2, y, { steps: 3 });
      expect(await now()).toBeLessThan(seen.at(-1)!);
      await page.mouse.up();
    });
  }

  test.describe('on a touch screen', () => {
    test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    test('a finger dragged along the track scrubs forward', async ({ page }) => {
      await page.goto('./?t=0');
      await ready(page);
      // At rest before and after the scroll: the track stays where the finger goes.
      await settled(page);
      await page.getByTestId('scrub-track').scrollIntoViewIfNeeded();
      await settled(page);
      const box = (await page.getByTestId('scrub-track').boundingBox())!;
      const y = box.y + box.height / 2;
      const now = async () => Number(await page.getByTestId('scrubber').getAttribute('aria-valuenow'));
      // Real touch events through the browser's input pipeline (they become pointer events of type touch).
      const cdp = await page.context().newCDPSession(page);
      const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', x: number) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
      await touch('touchStart', box.x + 4);
      const seen = [await now()];
      for (let i = 1; i <= 5; i++) {
        await touch('touchMove', box.x + 4 + ((box.width - 8) * i) / 5);
        // The page renders the move on its next frame: wait for it, then the time must have grown.
        await expect.poll(now).toBeGreaterThan(seen.at(-1)!);
        seen.push(await now());
      }
      await touch('touchEnd', box.x + box.width - 4);
      for (let i = 1; i < seen.length; i++) expect(seen[i], seen.join(', ')).toBeGreaterThan(seen[i - 1]!);
    });
  });

  test('a wheel over the chart zooms around the pointer, even turned before the zoom code has arrived', async ({ page }) => {
    // d3-zoom loads after the first draw (timelineZoom.ts): hold it back until the wheel has turned.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/assets/timelineZoom-*.js', async (route) => {
      await held;
      await route.continue();
    });
    const inFlight = new Set<Request>();
    page.on('request', (r) => {
      if (!/timelineZoom-/.test(r.url())) inFlight.add(r);
    });
    page.on('requestfinished', (r) => inFlight.delete(r));
    page.on('requestfailed', (r) => inFlight.delete(r));
    await page.goto('./?t=0');
    await ready(page);
    const svg = page.getByTestId('timeline-svg');
    await atRestButZoom(page, inFlight);
    await svg.scrollIntoViewIfNeeded();
    await atRestButZoom(page, inFlight);
    const box = (await svg.boundingBox())!;
    // The visible window over the whole run, in % of the track.
    const view = () => page.locator('.scrub-window').evaluate((el) => [parseFloat((el as HTMLElement).style.left), parseFloat((el as HTMLElement).style.width)] as [number, number]);
    expect((await view())[1]).toBeCloseTo(100, 0);
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    await page.mouse.wheel(0, -800);
    // Not zoomed yet, and the page did not scroll instead: the turn waits for the zoom code.
    expect((await view())[1]).toBeCloseTo(100, 0);
    release();
    await expect.poll(async () => (await view())[1]).toBeLessThan(50);
    // Around the pointer, right of the middle: both edges of the window moved in.
    const [left, width] = await view();
    expect(left).toBeGreaterThan(10);
    expect(left + width).toBeLessThan(95);
  });

  test('named jumps: first violation, next and previous leak', async ({ page }) => {
    await page.goto('./?t=0');
    await ready(page);
    const now = async () => Number(await page.getByTestId('scrubber').getAttribute('aria-valuenow'));
    await expect(page.getByTestId('prev-leak')).toBeDisabled();
    await page.getByTestId('next-leak').click();
    const first = await now();
    expect(first).toBeGreaterThan(0);
    await page.getByTestId('next-leak').click();
    expect(await now()).toBeGreaterThan(first);
    await page.getByTestId('prev-leak').click();
    expect(await now()).toBe(first);
    await page.getByTestId('first-violation').click();
    expect(await now()).toBeLessThanOrEqual(first);
  });
});

test.describe('the comparison side by side', () => {
  for (const size of SIZES) {
    test(`two responses for the selected request, the divergence named (${size.name})`, async ({ page }) => {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto('./?s=demo');
      await ready(page);
      // The switches and the comparison live in the Explore drawer now, closed on the first screen.
      await openExplore(page);
      await page.getByTestId('compare-select').selectOption('buggyRejectPath');
      const divergence = page.getByTestId('divergence');
      await expect(divergence).toContainText(/First different outcome: \S+, 200 \+ leak( \+ wrong output)? vs 400/);
      await page.getByTestId('divergence-go').click();
      await expect(page.getByTestId('compare-main-status')).toContainText('HTTP 200');
      await expect(page.getByTestId('compare-fixed-status')).toContainText('HTTP 400');
      // The fix lane shows what the fix did although the fixed run leaks nothing.
      await expect(page.getByTestId('count-leaked-compare')).toHaveText('0');
      expect(await page.locator('g.marks-compare path').count()).toBeGreaterThan(0);
      await page.getByTestId('compare-panel').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shots}/${size.name}-compare.png` });
      await page.locator('.timeline').screenshot({ path: `${shots}/${size.name}-compare-timeline.png` });
    });
  }


  test('two responses side by side when the fix still answers: one drawn from other tenants, one over zeros', async ({ page }) => {
    await page.goto('./?s=demo');
    await ready(page);
    await openExplore(page);
    await page.getByTestId('compare-select').selectOption('clearPagesOnFree');
    await expect(page.getByTestId('divergence')).toContainText(/First different outcome: \S+, 200 \+ leak( \+ wrong output)? vs 200 \+ wrong output/);
    await page.getByTestId('divergence-go').click();
    const main = page.getByTestId('compare-main');
    const fixed = page.getByTestId('compare-fixed');
    await expect(page.getByTestId('compare-main-status')).toContainText('HTTP 200');
    await expect(page.getByTestId('compare-fixed-status')).toContainText('HTTP 200');
    // Both answered, so both show their tokens: other tenants' words in one, none in the other.
    expect(await main.locator('.tok.foreign').count()).toBeGreaterThan(0);
    expect(await fixed.locator('.tok').count()).toBeGreaterThan(0);
    await expect(fixed.locator('.tok.foreign')).toHaveCount(0);
    await expect(fixed).toContainText('wrong output');
    await page.getByTestId('compare-panel').scrollIntoViewIfNeeded();
    await page.getByTestId('compare-panel').screenshot({ path: `${shots}/laptop-compare-clear.png` });
  });

  // The outcome matrix has its own spec: workshop-matrix.spec.ts.
});

test.describe('invariant lanes', () => {
  test('each property has a lane and a jump to its first breach, for the run and the comparison', async ({ page }) => {
    await page.goto('./?s=demo&t=0');
    await ready(page);
    const conf = page.locator('[data-invariant="confidentiality"]');
    await expect(conf).not.toHaveAttribute('data-breaches', '0');
    await page.getByTestId('first-confidentiality').click();
    const at = Number(await page.getByTestId('scrubber').getAttribute('aria-valuenow'));
    expect(at).toBeGreaterThan(0);
    await openExplore(page);
    await page.getByTestId('compare-select').selectOption('clearPagesOnFree');
    // Clearing pages keeps confidentiality, not integrity.
    await expect(conf).toContainText('with fix: holds');
    await expect(page.getByTestId('first-integrity-compare')).toBeVisible();
  });
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`axe finds no violations (${colorScheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme });
    await page.goto('./?s=demo&cmp=path');
    await ready(page);
    // At rest: what axe reads is the page, not a moment of its loading.
    await settled(page);
    await page.screenshot({ path: `${shots}/laptop-${colorScheme}.png` });
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
  });
}

for (const size of SIZES) {
  test(`screenshots of every view (${size.name})`, async ({ page }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto('./');
    await ready(page);
    for (const tab of ['Cluster', 'Transfer', 'Response'] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
      await page.locator('.views').scrollIntoViewIfNeeded();
      // The view, not its loading: Transfer and Response load when opened.
      await settled(page);
      await page.screenshot({ path: `${shots}/${size.name}-view-${tab.toLowerCase()}.png` });
    }
    await page.locator('.timeline').scrollIntoViewIfNeeded();
    await settled(page);
    await page.locator('.timeline').screenshot({ path: `${shots}/${size.name}-view-timeline.png` });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}

test('presenter mode zooms the views, not only the text', async ({ page }) => {
  // Not about motion: chapter 1 comes to its end, and the page to rest, as soon as its runs are computed.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto('./?ch=1');
  await atStop(page, 1);
  await settled(page);
  // Screen pixels per canvas pixel: the grid itself drawn larger, not only the words around it.
  const scale = () => page.locator('canvas').first().evaluate((e) => e.getBoundingClientRect().width / (e as HTMLCanvasElement).width);
  const plain = await scale();
  await page.goto('./?ch=1&pm=1');
  await atStop(page, 1);
  await ready(page);
  await settled(page);
  const zoom = await page.locator('.views').evaluate((e) => Number(getComputedStyle(e).zoom));
  expect(zoom).toBeGreaterThan(1.1);
  await page.screenshot({ path: `${shots}/laptop-presenter.png` });
  expect(await scale()).toBeGreaterThan(plain * 1.2);
});
