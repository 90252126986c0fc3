/**
 * "Your deployment", as an operator uses it: paste the two servers' scheduler start-up lines and
 * the launch arguments, read the bands, open the replay on those numbers, and reload the link to
 * the same picture; in light and dark (one page, the scheme switched at each picture), on a phone,
 * and in French. Screenshots go to the test's output folder, taken once the page is at rest.
 */
import AxeBuilder from '@axe-core/playwright';
import { test, expect, ready, settled } from './fixtures.ts';
import { smallestText } from './textSize.ts';
import type { Page } from '@playwright/test';

// As SGLang writes them: configure_logger's `[%(asctime)s{prefix}] ` then the scheduler's f-string.
const PREFILL_LINE = '[2026-08-27 09:12:44 TP0] max_total_num_tokens=681280, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=1048576, available_gpu_mem=9.87 GB';
const DECODE_LINE = '[2026-08-27 09:13:02 TP0] max_total_num_tokens=1310720, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=256, context_len=1048576, available_gpu_mem=11.02 GB';
const ARGS = [
  'python3 -m sglang.launch_server --model-path zai-org/GLM-5.3 --disaggregation-mode prefill \\',
  '  --context-length 1048576 --page-size 64 --chunked-prefill-size 8192',
  'python3 -m sglang.launch_server --model-path zai-org/GLM-5.3 --disaggregation-mode decode --page-size 64',
].join('\n');

async function paste(page: Page): Promise<void> {
  await page.getByTestId('deployment-open').click();
  const view = page.getByTestId('deployment');
  // Its code loads when it is first opened.
  await expect(view).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('deployment-args').fill(ARGS);
  await page.getByTestId('deployment-prefill-log').fill(PREFILL_LINE);
  await page.getByTestId('deployment-decode-log').fill(DECODE_LINE);
}

const WORDS = {
  en: { leaks: 'Prompts from 681,281 tokens leak on these numbers.', band: '681,281 – 1,048,576', leaked: 'answered 200 from other requests’ KV', replay: 'Replay a 681,281-token prompt', fromLog: 'from the log', context: '1,048,576' },
  fr: { leaks: 'Avec ces chiffres, les requêtes à partir de 681\u202f281\u00a0jetons fuient.', band: '681\u202f281 – 1\u202f048\u202f576', leaked: 'répondu 200 depuis le KV d’autres requêtes', replay: 'Rejouer une requête de 681\u202f281\u00a0jetons', fromLog: 'lu dans le journal', context: '1\u202f048\u202f576' },
} as const;

type Scheme = 'light' | 'dark';
const CASES = [
  // Light and dark differ in colours only: one page, each picture and check taken in both.
  { name: 'light and dark', lang: 'en' as const, colorSchemes: ['light', 'dark'] as Scheme[], viewport: { width: 1280, height: 720 } },
  { name: 'phone', lang: 'en' as const, colorSchemes: ['light'] as Scheme[], viewport: { width: 390, height: 844 } },
  { name: 'French', lang: 'fr' as const, colorSchemes: ['light'] as Scheme[], viewport: { width: 1280, height: 720 } },
];

for (const c of CASES) {
  test(`an operator pastes two log lines and an argument list, reads the bands, replays on their numbers and reloads the link (${c.name})`, async ({ page }, info) => {
    // Two live replays on the operator's numbers (before and after the reload), axe in each scheme.
    test.setTimeout(240_000);
    /** In each of the case's schemes, at rest: `check` then, named by the scheme (or the case where it has one). */
    const inEachScheme = async (check: (shot: string, colorScheme: Scheme) => Promise<void>) => {
      for (const colorScheme of c.colorSchemes) {
        await page.emulateMedia({ colorScheme });
        await settled(page);
        await check(c.colorSchemes.length > 1 ? colorScheme : c.name, colorScheme);
      }
    };
    await page.setViewportSize(c.viewport);
    await page.emulateMedia({ colorScheme: c.colorSchemes[0] });
    await page.goto(c.lang === 'fr' ? '/?lang=fr' : '/');
    await ready(page);
    await paste(page);
    const w = WORDS[c.lang];
    const view = page.getByTestId('deployment');
    // Every figure read from the texts says where it came from; none is assumed.
    await expect(view.getByText(w.fromLog).first()).toBeVisible();
    await expect(page.getByTestId('deployment-contextTokens')).toHaveValue(w.context);
    await expect(page.getByTestId('deployment-pageSize')).toHaveValue('64');
    await expect(page.getByTestId('deployment-problems')).toHaveCount(0);
    // The bands: the leak from 681,281 to 1,048,576 tokens, and what closes it.
    await expect(page.getByTestId('deployment-verdict')).toHaveText(w.leaks);
    const leakRow = page.getByTestId('deployment-bands').locator('tr[data-outcome="leaked"]');
    await expect(leakRow).toHaveCount(1);
    await expect(leakRow.locator('td').first()).toHaveText(w.band);
    await expect(leakRow).toContainText(w.leaked);
    await expect(leakRow.getByTestId('background-B2').first()).toBeVisible();
    await inEachScheme(async (shot, colorScheme) => {
      await view.screenshot({ path: info.outputPath(`deployment-bands-${shot}.png`) });
      // Readable and accessible: no text under 12 px at 1280×720, no axe violation in the view.
      if (c.viewport.width === 1280) {
        await view.scrollIntoViewIfNeeded();
        const small = await smallestText(page, { within: '[data-testid=deployment]', under: 12 });
        expect(small.under.map((u) => `${u.px} px ${u.element}: "${u.text}"`), colorScheme).toEqual([]);
      }
      // Run in the page (legacy mode): the default opens a second, blank page to merge the results of
      // frames, which this page has none of, and that costs seconds on a loaded machine.
      const axe = await new AxeBuilder({ page }).setLegacyMode(true).include('[data-testid=deployment]').analyze();
      expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), colorScheme).toEqual([]);
    });

    // The replay on these numbers: the stage shows the leaking request.
    await page.getByTestId('deployment-replay').click();
    await expect(page.getByTestId('deployment-replayed')).toContainText(w.leaked, { timeout: 120_000 });
    await expect(page).toHaveURL(/[?&]dep=1048576\.681280\.1310720\.64\.8192\.d\.r\.buggy-i_retire-i_length-i_clear-i/);
    await expect(page).toHaveURL(/[?&]req=\d+/);
    const story = page.getByTestId('story');
    await expect(story).toContainText('681', { timeout: 120_000 });
    await expect(page.getByTestId('stage')).toBeVisible();
    // The leak counter counts the replayed answer: the page stands just after it went out.
    await expect(page.locator('.leak-count')).toHaveText('1', { timeout: 60_000 });
    await settled(page);
    const before = { url: page.url(), story: await page.getByTestId('story-title').textContent() };
    await inEachScheme((shot) => page.screenshot({ path: info.outputPath(`deployment-replay-${shot}.png`) }).then(() => undefined));

    // The link holds the whole situation: reloaded, the same numbers, bands, request and story.
    await page.reload();
    await expect(page.getByTestId('deployment')).toBeVisible({ timeout: 90_000 });
    await expect(page.getByTestId('deployment-verdict')).toHaveText(w.leaks);
    await expect(page.getByTestId('deployment-contextTokens')).toHaveValue(w.context);
    await expect(page.getByTestId('deployment-prefillCapacities')).toHaveValue(/^681\D?280$/);
    await expect(page.getByTestId('deployment-replayed')).toContainText(w.leaked, { timeout: 120_000 });
    await expect(page.getByTestId('story-title')).toHaveText(before.story ?? '');
    await expect(page.locator('.leak-count')).toHaveText('1', { timeout: 60_000 });
    expect(new URL(page.url()).searchParams.get('req')).toBe(new URL(before.url).searchParams.get('req'));
    expect(new URL(page.url()).searchParams.get('dep')).toBe(new URL(before.url).searchParams.get('dep'));
    await inEachScheme((shot) => page.screenshot({ path: info.outputPath(`deployment-reloaded-${shot}.png`), fullPage: false }).then(() => undefined));

    // Back to the incident: the deployment leaves the link.
    await page.getByTestId('deployment-leave').click();
    await expect(page).not.toHaveURL(/[?&]dep=/);
  });
}

test('a malformed line is refused naming its line and field, and the fixed configuration leaks nowhere', async ({ page }) => {
  await page.goto('/');
  await ready(page);
  await page.getByTestId('deployment-open').click();
  await page.getByTestId('deployment-prefill-log').fill(`${PREFILL_LINE}\n[2026-08-27 09:12:45 TP0] max_total_num_tokens=12x, context_len=1048576`);
  await expect(page.getByTestId('deployment-problems')).toContainText('line 2: max_total_num_tokens is “12x”, not a whole number of tokens');
  await page.getByTestId('deployment-prefill-log').fill(PREFILL_LINE.replace('681280', '2040000'));
  await page.getByTestId('deployment-buggyRejectPath').selectOption('fixed');
  await expect(page.getByTestId('deployment-verdict')).toHaveText('No band leaks on these numbers.');
  await expect(page.getByTestId('deployment-bands').locator('tr[data-outcome="leaked"]')).toHaveCount(0);
  // Only the page clearing changed from the incident: no leak, a wrong answer.
  await page.getByTestId('deployment-prefill-log').fill(PREFILL_LINE);
  await page.getByTestId('deployment-buggyRejectPath').selectOption('incident');
  await page.getByTestId('deployment-clearPagesOnFree').selectOption('fixed');
  await expect(page.getByTestId('deployment-bands').locator('tr[data-outcome="wrong-answer"]')).toContainText('no leak, wrong answer');
});
