import type { Page } from '@playwright/test';
import { pick } from '../src/app/i18n/messages.ts';
import { tenantRgb } from '../src/app/ui/palette.ts';
import { TENANT_NAMES } from '../src/engine/core/vocab.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { shownTitle, spoilerOf } from '../src/app/walkthrough/chapters/spoilers.ts';
import { beatsOf } from '../src/app/walkthrough/timeline.ts';
import { expect, nextChapter, test } from './fixtures.ts';
import { pageSays } from './pageSays.ts';

/**
 * No spoiler at any moment: from a chapter's start (by its link, and by Next from the chapter before)
 * to its question's reveal, nothing on the page says the answer: not the story column, the stage, the
 * microscope (its words for assistive technology included), the titles, the buttons, the tabs or the
 * counters; nor do the stage's and microscope's canvases draw the customers the answer names in their
 * colours. What says an answer is the chapters' own data (chapters/spoilers.ts). And the answers
 * survive a reload.
 */

const panel = (page: Page) => page.getByTestId('walkthrough');

/** Folds French typesetting (no-break spaces) and runs of white space, so sentences compare as written. */
const fold = (s: string) => s.replace(/[\u00a0\u202f\s]+/g, ' ').trim().toLowerCase();

interface Seen {
  text: string;
  /** Testids of the story's and the probe's parts that say what prefill computed, the status and whose words: held while a question waits. */
  storyTold: string[];
  /** Per colour asked for: pixels of the stage's and microscope's canvases drawn in it. */
  pixels: number[];
  status: string;
  chapter: string;
  /** The beat the runner shows ('' until the chapter's runs are computed and it plays). */
  beat: string;
}

/** Everything the page shows now, less the question itself (its options name every answer). */
async function look(page: Page, colours: [number, number, number][]): Promise<Seen> {
  // The runner's state and the canvases first, then the words: a chapter that changes between the two
  // reads is read as the later one, never a later chapter's words counted for the one before.
  const state = await page.evaluate((colours) => {
    const pixels = colours.map(() => 0);
    if (colours.length > 0) {
      for (const c of document.querySelectorAll<HTMLCanvasElement>('[data-testid^="stage"] canvas, canvas[data-testid^="stage"]')) {
        if (c.width === 0 || c.height === 0) continue;
        const ctx = c.getContext('2d');
        if (!ctx) continue;
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3]! < 250) continue;
          for (let k = 0; k < colours.length; k++) {
            const [r, g, b] = colours[k]!;
            if (Math.abs(d[i]! - r) <= 2 && Math.abs(d[i + 1]! - g) <= 2 && Math.abs(d[i + 2]! - b) <= 2) pixels[k]!++;
          }
        }
      }
    }
    const p = document.querySelector('[data-testid="walkthrough"]');
    return { pixels, status: p?.getAttribute('data-status') ?? '', chapter: p?.getAttribute('data-chapter') ?? '', beat: p?.getAttribute('data-beat') ?? '' };
  }, colours);
  const says = await pageSays(page, '[data-testid="checkpoint"]');
  return { text: says.text, storyTold: says.told, ...state };
}

/** Fewer pixels than this in a colour are anti-aliasing, not a page drawn in it. */
const STRAY_PIXELS = 24;

const asking = CHAPTERS.flatMap((c, i) => (c.checkpoint ? [i + 1] : []));

/** The fake clock's start: any fixed instant (the page shows the incident's dates, never today's). */
const CLOCK_START = new Date('2025-01-06T09:00:00Z').getTime();

/**
 * Plays the chapter on screen to its stop on the fake clock: its runs computed in real time (the
 * clock flowing meanwhile), then its beats in a jump of the clock (the runner shows every beat it
 * passes, from its start, in the frame that reaches it).
 */
async function playToStop(page: Page, n: number): Promise<void> {
  await expect(panel(page)).toHaveAttribute('data-chapter', String(n), { timeout: 90_000 });
  // The chapter's own beat shown: its runs are computed and it plays (its first frame timed).
  await expect(panel(page)).toHaveAttribute('data-beat', /^\d+$/, { timeout: 90_000 });
  for (let jumps = 0; jumps < 3 && !/^(checkpoint|done)$/.test((await panel(page).getAttribute('data-status')) ?? ''); jumps++) await page.clock.fastForward(60_000);
  await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/);
}

for (const lang of ['en', 'fr'] as const) {
  for (const n of asking) {
    for (const by of ['link', 'Next'] as const) {
      test(`chapter ${n} by ${by} (${lang}): nothing says the answer before its reveal`, async ({ page }) => {
        // An upper bound: on a machine loaded several times over, every frame of a chapter's 100 ms steps takes its time.
        test.setTimeout(180_000);
        const spoiler = spoilerOf(n)!;
        const phrases = spoiler.phrases.map((p) => fold(pick(lang, p.en, p.fr)));
        const names = spoiler.tenants;
        const colours = names.map((t) => tenantRgb(TENANT_NAMES.indexOf(t)));
        // The page's time is Playwright's clock (rAF, timers, performance.now; the workers that compute
        // runs and the network are real): paused from the chapter's start, it moves only in the test's
        // 100 ms steps, so every step is looked at however slow the machine.
        await page.clock.install({ time: CLOCK_START });
        // What the runner says it does (its events, as the recorder hears them): every status, none missed between two looks.
        await page.addInitScript(() => {
          const told: string[] = [];
          (window as unknown as { __told: string[] }).__told = told;
          window.addEventListener('walkthrough', (e) => {
            const d = (e as CustomEvent<{ type: string; chapter: number; status?: string }>).detail;
            if (d.type === 'status') told.push(`${d.chapter}:${d.status}`);
          });
        });
        if (by === 'link') {
          // Far enough on that a loaded machine has not passed it before this call (the clock flows from `install`).
          await page.clock.pauseAt(CLOCK_START + 60_000);
          await page.goto(`./?ch=${n}&lang=${lang}`);
        } else {
          // The chapter before plays to its end (not looked at), then the clock stops for Next.
          await page.goto(`./?ch=${n - 1}&lang=${lang}`);
          await playToStop(page, n - 1);
          await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 5_000);
          await nextChapter(page);
        }
        // Every 100 ms of the page's time from the chapter's start until its question has waited a
        // second and a half. Until the chapter's runs are computed (in real time, in workers) the
        // steps go on as they come; from its first beat on, 60 s of the page's time at most.
        const found = new Set<string>();
        let waiting = 0;
        let samples = 0;
        let played = 0;
        /** Looks at which the chapter was playing: its first beat shown, its question not yet reached. */
        let playing = 0;
        while (waiting < 15 && played < 600) {
          const seen = await look(page, colours);
          if (seen.chapter === String(n)) {
            samples++;
            if (seen.beat !== '') played++;
            if (seen.beat !== '' && seen.status === 'running') playing++;
            const text = fold(seen.text);
            for (const [k, p] of phrases.entries()) if (text.includes(p)) found.add(`"${pick(lang, spoiler.phrases[k]!.en, spoiler.phrases[k]!.fr).slice(0, 60)}…"`);
            for (const t of names) {
              const at = text.search(new RegExp(`\\b${t}\\b`));
              if (at >= 0) found.add(`the name ${t} ("…${text.slice(Math.max(0, at - 50), at + 30)}…")`);
            }
            seen.pixels.forEach((count, k) => count >= STRAY_PIXELS && found.add(`${names[k]}'s colour (${count} px)`));
            for (const id of seen.storyTold) found.add(`the story's ${id}`);
            if (seen.status === 'checkpoint') waiting++;
          }
          if (waiting < 15) await page.clock.runFor(100);
        }
        expect(waiting, 'the question was reached').toBeGreaterThan(0);
        expect(samples).toBeGreaterThan(0);
        // The chapter played on the fake clock: it ran, then stopped at its question, its beats before
        // the question taking their own length of the page's time (a step each 100 ms).
        const told = (await page.evaluate(() => (window as unknown as { __told: string[] }).__told))
          .filter((t) => t.startsWith(`${n}:`))
          .map((t) => t.slice(t.indexOf(':') + 1))
          .filter((t, i, all) => t !== all[i - 1]);
        expect(told, 'the runner: running, then its question').toEqual(['running', 'checkpoint']);
        const beats = beatsOf(CHAPTERS[n - 1]!.steps);
        const beforeQuestion = beats.slice(0, beats.findIndex((b) => b.kind === 'checkpoint')).reduce((ms, b) => ms + b.ms, 0);
        expect(playing, `looks while the chapter played its ${beforeQuestion} ms before the question`).toBeGreaterThanOrEqual(Math.floor(beforeQuestion / 100) - 1);
        expect(playing).toBeLessThanOrEqual(Math.ceil(beforeQuestion / 100) + 2);
        expect([...found]).toEqual([]);
        // From here the page's time flows again, as a person's does.
        await page.clock.resume();
        // The question's own title is the one shown; once revealed, its chapter's own.
        await expect(page.locator('#walk-h')).toHaveText(pick(lang, shownTitle(n, () => false).en, shownTitle(n, () => false).fr));
        await page.keyboard.press('PageDown');
        await page.keyboard.press('PageDown');
        await expect(page.getByTestId('checkpoint-result')).toBeVisible();
        const title = shownTitle(n, (k) => k === n);
        await expect(page.locator('#walk-h')).toHaveText(pick(lang, title.en, title.fr));
      });
    }
  }
}

test('answers survive a reload: the option chosen, shown revealed', async ({ page }) => {
  test.setTimeout(120_000);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto('./?ch=2');
  await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint', { timeout: 90_000 });
  const cp = CHAPTERS[1]!.checkpoint!;
  const wrong = cp.options.findIndex((o) => o.id !== cp.answer);
  await page.keyboard.press(String(wrong + 1));
  await expect(page.getByTestId('checkpoint-result')).toHaveAttribute('data-correct', 'false');
  await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
  await page.reload();
  await expect(panel(page)).toHaveAttribute('data-chapter', '2', { timeout: 90_000 });
  await expect(page.getByTestId('checkpoint')).toHaveAttribute('data-answered', 'true');
  await expect(page.getByTestId('checkpoint-result')).toHaveAttribute('data-correct', 'false');
  await expect(page.getByTestId('checkpoint').getByRole('radio').nth(wrong)).toBeChecked();
  // Revealed, so the chapter plays through to its end, and its title is its own.
  await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
  await expect(page.locator('#walk-h')).toHaveText(CHAPTERS[1]!.title.en);
  // Another chapter's question is still asked.
  await page.goto('./?ch=6');
  await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint', { timeout: 90_000 });
  await expect(page.getByTestId('checkpoint')).toHaveAttribute('data-answered', 'false');
});

test('a question still to come: from chapter 1 to the last question, by Next, nothing on the page (the first screen included, however far it is scrolled) says the answer of a question not yet revealed, and the first screen holds its outcome while one it tells waits', async ({ page }) => {
  test.setTimeout(300_000);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto('./?ch=1');
  const revealed = new Set<number>();
  const last = asking[asking.length - 1]!;
  const found: string[] = [];
  const lookNow = async (n: number, when: string) => {
    const seen = await look(page, []);
    const text = fold(seen.text);
    for (const q of asking.filter((q) => q >= n && !revealed.has(q))) {
      const spoiler = spoilerOf(q)!;
      for (const p of spoiler.phrases) if (text.includes(fold(p.en))) found.push(`chapter ${n} ${when}: question ${q}'s "${p.en.slice(0, 50)}…"`);
      // The first screen's outcome answers the questions that say so (chapters/chapter.ts `firstScreenTells`).
      if (CHAPTERS[q - 1]!.checkpoint!.firstScreenTells) for (const id of seen.storyTold) found.push(`chapter ${n} ${when}: the story's ${id} before question ${q}`);
    }
    // The page scrolled over its whole height (a phone scrolled up to the first screen): the text is the same.
    await page.evaluate(() => window.scrollTo(0, 0));
  };
  for (let n = 1; n <= last; n++) {
    await expect(panel(page)).toHaveAttribute('data-chapter', String(n), { timeout: 90_000 });
    await lookNow(n, 'as it starts');
    await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
    await lookNow(n, 'at its stop');
    if ((await panel(page).getAttribute('data-status')) === 'checkpoint') {
      await page.keyboard.press('PageDown');
      await page.keyboard.press('PageDown');
      await expect(page.getByTestId('checkpoint-result')).toBeVisible();
      revealed.add(n);
      await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
      if (n === last) break;
    }
    await page.getByTestId('walk-next').click();
  }
  expect(found).toEqual([]);
  // Once every question the first screen tells is revealed, it tells its outcome again.
  await expect(page.getByTestId('story-held')).toHaveCount(0);
});
