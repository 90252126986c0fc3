import type { Page } from '@playwright/test';
import { MESSAGES, SAME_IN_BOTH, type MessageKey } from '../src/app/i18n/messages.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { expect, openExplore, ready, settled, test } from './fixtures.ts';

/**
 * The French page, view by view: no visible text may be an English entry of the catalogue (or an
 * English sentence built from one), and no number or date may be written the English way. Text a
 * view marks `lang="en"` (the model's toy vocabulary, a browser's own error message) is English on
 * purpose and is skipped; the report's quotes are French. Each view is read once the page is at
 * rest; views that one page reaches by its own controls (the demo's three views, the walkthrough's
 * chapters by Next) share that page.
 */

/** Words and names that read the same in both languages, allowed as they are. */
const SAME_WORDS = new Set([...SAME_IN_BOTH.map((k) => MESSAGES.en[k]), 'WebGPU', 'RDMA', 'KV', 'JS', 'SGLang', 'Workers AI', 'Success', 'Failed', 'HTTP', 'UTC']);

const EN = MESSAGES.en;
const FR = MESSAGES.fr;
const keys = Object.keys(EN) as MessageKey[];
const hasPlaceholder = (s: string) => /\{\w+\}/.test(s);

/** English entries a French text node must never equal. */
const ENGLISH_ENTRIES = new Set(keys.filter((k) => !hasPlaceholder(EN[k]) && EN[k].trim() !== '' && EN[k] !== FR[k]).map((k) => EN[k].trim()).filter((s) => !SAME_WORDS.has(s)));

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Every word the French catalogue uses: a template made only of these (« {node} pages ») tells nothing apart. */
const FRENCH_WORDS = new Set(keys.flatMap((k) => FR[k].toLowerCase().match(/\p{L}+/gu) ?? []));
const englishOnly = (template: string) => (template.replace(/\{\w+(?:#[^{}]*)?\}/g, ' ').toLowerCase().match(/\p{L}{3,}/gu) ?? []).some((w) => !FRENCH_WORDS.has(w));
/**
 * English sentences with placeholders, as anchored patterns. A template whose words are too few to
 * tell the languages apart (it also matches its own French) is left out.
 */
const ENGLISH_TEMPLATES = keys
  .filter((k) => hasPlaceholder(EN[k]) && EN[k] !== FR[k])
  // A count's words (« {n#s} », text.ts) match whatever the count chose, nothing included.
  .map((k) => ({ key: k, re: new RegExp(`^${EN[k].trim().split(/(\{\w+(?:#[^{}]*)?\})/).map((part, i) => (i % 2 === 0 ? escape(part) : part.includes('#') ? '[\\s\\S]*?' : '[\\s\\S]+?')).join('')}$`) }))
  .filter(({ key, re }) => !re.test(FR[key].replace(/\{\w+(?:#[^{}]*)?\}/g, 'x').trim()) && englishOnly(EN[key]));

/** Numbers and dates in the English way: 1,048,576; 0.125; Aug; Thu; 2 PM. */
const ENGLISH_FORMATS: [string, RegExp][] = [
  // 1,048,576 or 800,000; not a French decimal such as « 0,602 s ».
  ['comma thousands separator', /(?<![\d,])(?:\d{1,3}(?:,\d{3}){2,}|[1-9]\d{0,2},\d{3})(?![\d,])(?!\s?(?:s|ms|%)(?!\p{L}))/u],
  // 0.125 or 2.04; not a version (GLM 5.3) or an address (arxiv.org/abs/2401.16603).
  ['decimal point', /(?<![\p{L}\d./])\d+\.\d+(?![\p{L}\d.])/u],
  ['English month', /(?<!\p{L})(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)(?!\p{L})/u],
  ['English weekday', /(?<!\p{L})(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?!\p{L})/u],
  ['AM/PM clock', /(?<!\p{L})\d{1,2}(?::\d{2})?\s?(?:AM|PM)(?!\p{L})/u],
];

interface Seen {
  text: string;
  where: string;
  code: boolean;
}

/** Every visible text node, and the text of every visible element (a sentence may span elements). */
async function visibleText(page: Page): Promise<{ nodes: Seen[]; elements: Seen[] }> {
  return page.evaluate(() => {
    const where = (el: Element) => {
      const parts: string[] = [];
      for (let e: Element | null = el; e && parts.length < 4; e = e.parentElement) {
        const id = e.getAttribute('data-testid') ?? e.id;
        parts.push(e.tagName.toLowerCase() + (id ? `#${id}` : '') + (e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''));
      }
      return parts.join(' < ');
    };
    const shown = (el: Element): boolean => {
      if (el.closest('[lang="en"]:not(html), script, style, [aria-hidden="true"]')) return false;
      if (el.tagName === 'OPTION') return !!el.closest('select')?.checkVisibility();
      return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    };
    const nodes: { text: string; where: string; code: boolean }[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = (n.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (!el || !text || !shown(el)) continue;
      nodes.push({ text, where: where(el), code: !!el.closest('code') });
    }
    const elements: { text: string; where: string; code: boolean }[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (!(el instanceof HTMLElement) || !shown(el)) continue;
      const text = (el.innerText ?? '').replace(/\s+/g, ' ').trim();
      if (text && text.length < 600) elements.push({ text, where: where(el), code: !!el.closest('code') });
    }
    return { nodes, elements };
  });
}

/** Fails on English the French page shows; `view` names the page for the message. */
async function expectFrench(page: Page, view: string): Promise<void> {
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  const { nodes, elements } = await visibleText(page);
  expect(nodes.length, `${view}: visible text`).toBeGreaterThan(20);
  const problems: string[] = [];
  for (const n of nodes) {
    if (ENGLISH_ENTRIES.has(n.text)) problems.push(`English catalogue entry "${n.text}" at ${n.where}`);
    if (n.code) continue;
    for (const [what, re] of ENGLISH_FORMATS) {
      const text = n.text.replace(/GLM \d+\.\d+/g, 'GLM');
      if (re.test(text)) problems.push(`${what} in "${n.text}" at ${n.where}`);
    }
  }
  for (const e of elements) {
    const t = ENGLISH_TEMPLATES.find(({ re }) => re.test(e.text));
    if (t) problems.push(`English sentence (${t.key}) "${e.text.slice(0, 120)}" at ${e.where}`);
  }
  expect([...new Set(problems)], `${view} in French`).toEqual([]);
}

test.describe('the French page', () => {
  test.beforeEach(async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
  });

  test('the incident window: timeline, clock, controls, matrix and the evidence panel', async ({ page }) => {
    test.setTimeout(240_000);
    await page.goto('./?lang=fr&view=cluster');
    await expect(page.getByTestId('scrubber')).toBeVisible({ timeout: 90_000 });
    await ready(page);
    // The clock and every lane are the model's; the milestones of day-only facts are bands.
    await expect(page.locator('.scrub-bar-clock .badge.model')).toBeVisible();
    await expect(page.locator('[data-testid="timeline-svg"] g.lane[data-evidence="model"]')).toHaveCount(5);
    await expect(page.locator('[data-testid="timeline-svg"] g.day-band').first()).toBeAttached();
    await page.getByTestId('milestone-list').locator('summary').click();
    await openExplore(page);
    await page.locator('details.assumptions summary').click();
    await page.getByText('Tableau des issues', { exact: true }).click();
    // The matrix is measured once its section opens (a dozen runs in its worker, after the page's own).
    await expect(page.getByTestId('matrix')).toBeVisible({ timeout: 120_000 });
    await expect(page.getByTestId('evidence-panel')).toContainText('N9');
    // English titles quoted in French texts are marked as English; every assumption is listed by its id range.
    await expect(page.getByTestId('evidence-panel').locator('[lang="en"]', { hasText: 'Retire aborted disaggregated prefill results' }).first()).toBeAttached();
    await expect(page.getByTestId('evidence-panel')).toContainText('Les hypothèses A1 à A15');
    await expect(page.getByTestId('evidence-panel')).not.toContainText('comble )');
    await settled(page);
    await expectFrench(page, 'incident, cluster view');
    // Every public source shown carries its address.
    for (const ref of await page.locator('[data-background]').all()) {
      await expect(ref.locator('a[href^="https://"]').first()).toBeAttached();
    }
  });

  test('the demo: the transfer view and the exhaustive check of the protocol, the response view and the decode backend panel, the cluster view with a page inspected', async ({ page }) => {
    // The exhaustive check and a decode, each in a worker, on two loaded cores.
    test.setTimeout(180_000);
    // One request selected (the over-long one, which the demo's first screen tells), its three views by their tabs.
    await page.goto('./?s=demo&view=transfer&req=8&lang=fr');
    await ready(page);
    await expect(page.getByTestId('computed-tokens')).toBeVisible();
    await settled(page);
    await expectFrench(page, 'transfer view');
    await page.getByTestId('protocol-check').locator('summary').click();
    await page.getByRole('button', { name: 'Lancer la vérification' }).click();
    await expect(page.getByTestId('verify-panel').locator('.vp-status')).toContainText('Terminé', { timeout: 60_000 });
    await page.getByRole('button', { name: /^Rejouer le contre-exemple de/ }).first().click();
    const forward = page.getByTestId('verify-panel').getByRole('button', { name: 'Étape suivante' });
    for (let i = 0; i < 13; i++) await forward.click();
    await expect(page.locator('.vp-violation')).toBeVisible();
    await settled(page);
    await expectFrench(page, 'transfer view, protocol check');

    await page.getByRole('tab', { name: FR.viewResponse }).click();
    await expect(page.getByTestId('response-tokens')).toBeVisible();
    await expect(page.getByTestId('response-model-note')).toContainText('F6');
    await expect(page.getByTestId('backend-running')).not.toHaveText(/démarrage/, { timeout: 30_000 });
    await page.getByRole('button', { name: /^Générer 24 jetons/ }).click();
    await expect(page.getByTestId('decode-result')).toBeVisible({ timeout: 60_000 });
    await settled(page);
    await expectFrench(page, 'response view and decode panel');

    await page.getByRole('tab', { name: FR.viewCluster }).click();
    await expect(page.getByTestId('inspector')).toBeVisible();
    await page.locator('canvas[data-node="decode-0"]').click({ position: { x: 10, y: 10 } });
    await expect(page.getByTestId('inspector-state')).toBeVisible();
    await settled(page);
    await expectFrench(page, 'demo, cluster view');
  });

  // The chapters in runs of a few, as a presenter goes (Next once each has come to its stop), each run
  // opened by the link to its first chapter: one page load a run, not one a chapter.
  for (const [first, last] of [
    [1, 4],
    [5, 8],
    [9, CHAPTERS.length],
  ] as const) {
    test(`walkthrough chapters ${first} to ${last} (${CHAPTERS.slice(first - 1, last).map((c) => c.id).join(', ')})`, async ({ page }) => {
      // Several chapters' runs and their answers, on two loaded cores.
      test.setTimeout(240_000);
      await page.goto(`./?ch=${first}&lang=fr`);
      const panel = page.getByTestId('walkthrough');
      for (let n = first; n <= last; n++) {
        await expect(panel).toHaveAttribute('data-chapter', String(n), { timeout: 90_000 });
        await expect(panel).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
        await settled(page);
        await expectFrench(page, `chapter ${n}`);
        if (CHAPTERS[n - 1]!.checkpoint) {
          await panel.locator('input[type="radio"]').first().check();
          await page.getByTestId('checkpoint-submit').click();
          await expect(page.getByTestId('checkpoint-result')).toBeVisible();
          await expect(panel).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
          await settled(page);
          await expectFrench(page, `chapter ${n}, answered`);
        }
        if (n === CHAPTERS.length) {
          await page.getByTestId('walk-evidence').click();
          await expect(page.locator('#evidence-h')).toBeFocused();
        } else if (n < last) await page.getByTestId('walk-next').click();
      }
    });
  }
});

test('switching to French live fetches the French text then, and the page reads French', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('.js')) scripts.push(new URL(r.url()).pathname);
  });
  await page.goto('./');
  await ready(page);
  await expect(page.locator('.tagline')).toHaveText(EN.tagline);
  // An English page has not asked for the French catalogue.
  const french = (s: string) => s.includes(FR.language);
  const before = await Promise.all(scripts.map((s) => page.evaluate(async (u) => (await fetch(u)).text(), s)));
  expect(before.some(french)).toBe(false);
  const count = scripts.length;
  await page.getByLabel(EN.language).selectOption('fr');
  await expect(page.locator('.tagline')).toHaveText(FR.tagline);
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  const after = await Promise.all(scripts.slice(count).map((s) => page.evaluate(async (u) => (await fetch(u)).text(), s)));
  expect(after.some(french)).toBe(true);
  await settled(page);
  await expectFrench(page, 'the first screen, switched live');
});
