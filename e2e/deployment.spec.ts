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
// The launcher's line before it, which says which kind of server the log is from.
const PREFILL_ARGS_LINE = "[2026-08-27 09:12:30] server_args=ServerArgs(model_path='zai-org/GLM-5.3', context_length=1048576, page_size=64, disaggregation_mode='prefill')";
const PREFILL_STARTUP = `${PREFILL_ARGS_LINE}\n${PREFILL_LINE}`;
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
  await stateBuild(page);
}

/** What the operator's build does where SGLang's public history does not say: the reject path and retiring as in the incident. */
async function stateBuild(page: Page): Promise<void> {
  await page.getByTestId('deployment-buggyRejectPath').selectOption('incident');
  await page.getByTestId('deployment-retireWithoutSend').selectOption('incident');
}

const WORDS = {
  en: { leaks: 'Prompts from 681,274 tokens leak on these numbers.', band: '681,274 – 1,048,569', leaked: 'answered 200 from other requests’ KV', replay: 'Replay a 681,274-token prompt', fromLog: 'from the log', context: '1,048,576' },
  fr: { leaks: 'Avec ces chiffres, les requêtes à partir de 681\u202f274\u00a0jetons fuient.', band: '681\u202f274 – 1\u202f048\u202f569', leaked: 'servie en 200 depuis le KV d’autres requêtes', replay: 'Rejouer une requête de 681\u202f274\u00a0jetons', fromLog: 'lu dans le journal', context: '1\u202f048\u202f576' },
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
    // The bands, by SGLang's own checks: the leak from 681,274 (prefill's max_req_input_len, min(1,048,575,
    // 681,279) − 5) to 1,048,569 (decode's own, min(1,048,575, 1,310,719) − 5, less one), and what closes it.
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
    await expect(page).toHaveURL(/[?&]dep=1048576\.681280\.1310720\.64\.8192\.d\.s\.buggy-i_retire-i_length-i_clear-i/);
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
  // 2,040,000 of prefill KV behind the 1,048,576 context: prefill's limit (1,048,570) is the context's, and
  // decode refuses at its own, no higher whatever its pool: closed, the build and decode's pool unsaid.
  await expect(page.getByTestId('deployment-verdict')).toHaveText('No band leaks on these numbers.');
  await expect(page.getByTestId('deployment-verdict')).toHaveAttribute('data-verdict', 'closed');
  await expect(page.getByTestId('deployment-bands').locator('tr[data-outcome="leaked"]')).toHaveCount(0);
  // Only the page clearing changed from the incident: no leak, a wrong answer.
  await page.getByTestId('deployment-prefill-log').fill(PREFILL_LINE);
  await stateBuild(page);
  await page.getByTestId('deployment-clearPagesOnFree').selectOption('fixed');
  await expect(page.getByTestId('deployment-bands').locator('tr[data-outcome="wrong-answer"]')).toContainText('no leak, wrong answer');
});

test('a prefill log pasted in the decode box is marked there, in place, and no verdict shows until it is fixed (a typed figure too)', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await ready(page);
  await page.getByTestId('deployment-open').click();
  await expect(page.getByTestId('deployment')).toBeVisible({ timeout: 60_000 });
  const decode = page.getByTestId('deployment-decode-log');
  const verdict = page.getByTestId('deployment-verdict');
  const summary = page.getByTestId('deployment-problems');
  await decode.fill(PREFILL_STARTUP);
  // Under the box, naming its line and field; the box says it is wrong and what is wrong with it.
  const marked = page.getByTestId('deployment-decode-log-problems');
  const problem = 'Decode server’s start-up log, line 1: this log says disaggregation_mode=prefill, which is not the kind of server it was pasted for';
  await expect(marked).toHaveText(problem);
  await expect(decode).toHaveAttribute('aria-invalid', 'true');
  await expect(decode).toHaveAccessibleDescription(problem);
  // No verdict, no bands, no replay: a sentence says why.
  await expect(summary).toContainText('No answer while a box has an error: fix the marked box, or clear it.');
  await expect(verdict).toHaveCount(0);
  await expect(page.getByTestId('deployment-bands')).toHaveCount(0);
  await expect(page.getByTestId('deployment-replay')).toHaveCount(0);
  await expect(page).not.toHaveURL(/[?&]dep=/);
  await settled(page);
  const axe = await new AxeBuilder({ page }).setLegacyMode(true).include('[data-testid=deployment]').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  const small = await smallestText(page, { within: '[data-testid=deployment]', under: 12 });
  expect(small.under.map((u) => `${u.px} px ${u.element}: "${u.text}"`)).toEqual([]);
  // The summary's entry takes the keyboard to the box.
  await summary.getByRole('button', { name: problem }).press('Enter');
  await expect(decode).toBeFocused();

  // In French, the same problem in the page's words.
  await page.getByRole('combobox', { name: 'Language' }).selectOption('fr');
  await expect(marked).toHaveText('Journal de démarrage du serveur de génération, ligne 1\u00a0: ce journal indique disaggregation_mode=prefill, qui n’est pas le type de serveur pour lequel il a été collé');
  await expect(verdict).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Langue' }).selectOption('en');
  await expect(marked).toHaveText(problem);

  // Fixed (the log in the prefill box, the decode box cleared): the verdict is back.
  await decode.fill('');
  await page.getByTestId('deployment-prefill-log').fill(PREFILL_STARTUP);
  await stateBuild(page);
  // The decode server's figures are the incident's, assumed: a leak on them says so.
  await expect(verdict).toHaveText('Prompts from 681,274 tokens may leak on these numbers; still to give: Each decode server’s KV (tokens; one server per “;”).');
  await expect(marked).toHaveCount(0);
  await expect(summary).toHaveCount(0);
  await expect(decode).not.toHaveAttribute('aria-invalid');

  // A typed figure that is not a number holds the verdict back the same way, marked under its field.
  const pageSize = page.getByTestId('deployment-pageSize');
  await pageSize.fill('64x');
  await expect(page.getByTestId('deployment-pageSize-problem')).toHaveText('Page size (tokens): “64x” is not a whole number of tokens');
  await expect(pageSize).toHaveAttribute('aria-invalid', 'true');
  await expect(verdict).toHaveCount(0);
  await expect(summary).toContainText('No answer while a box has an error');
  await pageSize.fill('64');
  await expect(verdict).toHaveAttribute('data-verdict', 'unknown');
});

/** The log a prefill server writes over a long run: its start-up lines, then request lines to about `chars` characters. Built in the page. */
function pasteLongLog(el: HTMLTextAreaElement | HTMLElement, { head, chars }: { head: string[]; chars: number }): number {
  const parts = [...head];
  let n = head.join('\n').length;
  for (let i = 0; n < chars; i++) {
    const at = `2026-08-27 ${String(9 + Math.floor(i / 36000) % 15).padStart(2, '0')}:${String(Math.floor(i / 600) % 60).padStart(2, '0')}:${String(Math.floor(i / 10) % 60).padStart(2, '0')}`;
    const line =
      i % 3 === 2
        ? `[${at}] INFO:     10.0.${i % 250}.7:${40000 + (i % 20000)} - "POST /generate HTTP/1.1" 200 OK`
        : `[${at} TP0] Prefill batch. #new-seq: 1, #new-token: ${1000 + (i % 7000)}, #cached-token: ${i % 5 === 0 ? 0 : 512}, token usage: 0.${i % 10}1, #running-req: ${i % 48}, #queue-req: 0`;
    parts.push(line);
    n += line.length + 1;
  }
  const text = parts.join('\n');
  // As a browser pastes: a paste event carrying the text (Playwright's fill types it in, a line at a time).
  const data = new DataTransfer();
  data.setData('text/plain', text);
  el.focus();
  el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  return text.length;
}

test('a 10 MB log pasted whole is read off the page’s thread: its progress shows, then the answer', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await ready(page);
  await page.getByTestId('deployment-open').click();
  await expect(page.getByTestId('deployment')).toBeVisible({ timeout: 60_000 });
  const box = page.getByTestId('deployment-prefill-log');
  // Every state of the progress bar, as the page commits it (a read of a few hundred ms is easily missed between two looks).
  await page.evaluate(() => {
    const seen: { value: string | null; max: string | null; label: string | null }[] = [];
    (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
    new MutationObserver(() => {
      for (const p of document.querySelectorAll('[data-testid=deployment] progress')) seen.push({ value: p.getAttribute('value'), max: p.getAttribute('max'), label: p.getAttribute('aria-label') });
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const chars = await box.evaluate(pasteLongLog, { head: [PREFILL_ARGS_LINE, PREFILL_LINE], chars: 10_000_000 });
  expect(chars).toBeGreaterThanOrEqual(10_000_000);
  // Too long to show: its size stands in the box's place, and has the focus.
  const pasted = page.getByTestId('deployment-prefill-log-pasted');
  await expect(pasted).toBeFocused();
  await expect(pasted).toContainText(/^10\.0 MB pasted, \d{2},\d{3} lines\./);
  await settled(page);
  await expect(page.getByTestId('deployment-verdict')).toHaveAttribute('data-verdict', 'unknown');
  await expect(page.getByTestId('deployment-verdict')).toContainText('Prompts from 681,274 tokens may leak');
  await expect(page.locator('.deployment-field', { has: page.getByTestId('deployment-prefillCapacities') }).locator('.deployment-origin')).toHaveText(WORDS.en.fromLog);
  await expect(page.getByTestId('deployment-prefillCapacities')).toHaveValue(/^681\D?280$/);
  await expect(page.getByRole('progressbar')).toHaveCount(0);
  const seen = await page.evaluate(() => (window as unknown as { progressSeen: { value: string | null; max: string | null; label: string | null }[] }).progressSeen);
  expect(seen.length, 'the progress bar showed').toBeGreaterThan(0);
  expect(seen.filter((p) => p.value !== null && Number(p.max) === chars && Number(p.value) <= chars).length, 'with a value, of the whole text').toBeGreaterThan(0);
  expect(new Set(seen.map((p) => p.label))).toEqual(new Set(['Reading: Prefill server’s start-up log']));
  // Cleared with its button: an empty box again, focused.
  await pasted.getByRole('button', { name: 'Clear' }).click();
  await expect(box).toBeFocused();
  await expect(box).toHaveValue('');
});
