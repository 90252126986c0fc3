import type { Page } from '@playwright/test';
import { expect, openExplore, test } from './fixtures.ts';

/**
 * The first screen tells what the run did to its request, in every configuration the URL can set:
 * the headline, the numbers and the status agree with the run (the Transfer tab's reading of the
 * same request and the run's counters), and the leak counter agrees with the story at every instant.
 * Each configuration is opened by its link; a test walks several in one page.
 */

interface Config {
  name: string;
  query: string;
  outcome: string;
  title: RegExp;
  status: string;
  computed: string | 'sent';
  reserved?: string;
  /** The run's counter (in the Explore drawer) this outcome adds to. */
  counter: string;
  text: 'tokens' | 'none';
}

const CONFIGS: Config[] = [
  { name: 'the incident’s defects', query: '', outcome: 'leaked', title: /^A request too long to serve, answered anyway from other customers’ memory$/, status: '200', computed: '1', counter: 'count-leaked', text: 'tokens' },
  { name: 'the fixed reject path', query: 'd=gap', outcome: 'rejected', title: /^A request too long to serve, refused at admission: HTTP 400, nothing reserved$/, status: '400', computed: '0', reserved: '0', counter: 'count-rejected', text: 'none' },
  { name: 'clear pages on free', query: 'm=clear', outcome: 'cleared', title: /answered anyway from cleared pages: nobody’s data, but a wrong answer$/, status: '200', computed: '1', counter: 'count-wrong', text: 'tokens' },
  { name: 'zero pages on allocate', query: 'm=zero', outcome: 'cleared', title: /answered anyway from cleared pages/, status: '200', computed: '1', counter: 'count-wrong', text: 'tokens' },
  { name: 'the transferred-length check', query: 'm=length', outcome: 'check-failed', title: /stopped by decode’s transferred-length check: HTTP 500, nothing leaked$/, status: '500', computed: '1', counter: 'count-errors', text: 'none' },
  { name: 'the per-read integrity check', query: 'm=integrity', outcome: 'check-failed', title: /stopped by decode’s per-read integrity check: HTTP 500, nothing leaked$/, status: '500', computed: '1', counter: 'count-errors', text: 'none' },
  { name: 'aborted results retired without a send', query: 'm=retire', outcome: 'retired', title: /retired by prefill without sending a page: HTTP 500, nothing leaked$/, status: '500', computed: '1', counter: 'count-errors', text: 'none' },
  { name: 'no capacity gap', query: 'd=buggy', outcome: 'served', title: /^A request of [\d,]+ tokens, served in full from its own KV$/, status: '200', computed: 'sent', counter: 'count-served', text: 'tokens' },
];

/**
 * The first screen's handoff to the answer's step (the client gets its status), by its step in the
 * list beside the stage (a refusal's last step). Not its end: the pages' reuse comes later, when more
 * answers have gone out.
 */
async function toTheAnswer(page: Page): Promise<void> {
  const steps = page.getByTestId('story-steps');
  const answer = steps.locator('li[data-step="response"]');
  await ((await answer.count()) > 0 ? answer : steps.locator('li').last()).getByRole('button').click();
}

async function story(page: Page, query: string): Promise<void> {
  await page.goto(`./?${query}`);
  // A configuration other than the opening one replays the two weeks in the page's worker.
  await expect(page.getByTestId('story-numbers')).toHaveAttribute('data-outcome', /.+/, { timeout: 90_000 });
}

/** What the first screen says of one configuration, opened by its link. */
async function checkConfig(page: Page, c: Config): Promise<void> {
  await test.step(c.name, async () => {
    await story(page, c.query);
    await expect(page.getByTestId('story-numbers')).toHaveAttribute('data-outcome', c.outcome);
    await expect(page.getByTestId('story-title')).toHaveText(c.title);
    const sent = (await page.getByTestId('story-sent').textContent())!;
    await expect(page.getByTestId('story-status')).toHaveText(c.status);
    await expect(page.getByTestId('story-computed')).toHaveText(c.computed === 'sent' ? sent : c.computed);
    if (c.reserved) await expect(page.getByTestId('story-reserved')).toHaveText(c.reserved);
    if (c.text === 'tokens') await expect(page.getByTestId('story-tokens')).toBeVisible();
    else await expect(page.getByTestId('story-no-text')).toContainText(`HTTP ${c.status}`);
    // Opened without a time, the handoff stands at its beginning: the request is in flight and its
    // answer not counted yet. At the handoff's end the story says it was sent, and the counter counts
    // the leaks sent by then (this one, when it leaked).
    const counter = page.getByTestId('leaks-so-far');
    // (A refusal at admission is answered at its arrival's instant.)
    await expect(page.getByTestId('story-when')).toHaveAttribute('data-phase', c.outcome === 'rejected' ? 'answered' : 'in-flight');
    await expect(counter).toHaveAttribute('data-count', '0');
    await toTheAnswer(page);
    await expect(page.getByTestId('story-when')).toHaveAttribute('data-phase', 'answered');
    await expect(counter).toHaveAttribute('data-count', c.outcome === 'leaked' ? '1' : '0');
    // The run's own counters: the outcome is counted, and the counter's total is the run's leaks.
    await expect(page.getByTestId(c.counter)).not.toHaveText('0');
    const leaked = (await page.getByTestId('count-leaked').textContent())!;
    await expect(counter).toContainText(`of ${leaked}`);
    if (c.outcome !== 'leaked') expect(leaked).toBe('0');
    // The Transfer tab reads the same request's response: the same numbers.
    const computed = (await page.getByTestId('story-computed').textContent())!;
    await page.getByRole('tab', { name: 'Transfer' }).click();
    await expect(page.getByTestId('computed-tokens')).toHaveText(computed);
    await expect(page.getByTestId('transfer-status')).toHaveText(c.status);
  });
}

// Four configurations a test, one page opening each by its link in turn (its code already loaded once):
// two tests of a few page loads each rather than eight of one.
for (const configs of [CONFIGS.slice(0, 4), CONFIGS.slice(4)]) {
  test(`${configs.map((c) => c.name).join('; ')}: the headline, numbers and status are the run’s`, async ({ page }) => {
    test.setTimeout(120_000);
    for (const c of configs) await checkConfig(page, c);
  });
}

test('the deployment capacity check: no request served, and the story says so', async ({ page }) => {
  await page.goto('./?m=deploy');
  await expect(page.getByTestId('story-title')).toHaveText('A deployment refused before it served: nothing ran, nothing leaked', { timeout: 90_000 });
  await expect(page.getByTestId('story-explain')).toContainText('1,048,576');
  await expect(page.getByTestId('story-numbers')).toHaveCount(0);
  await expect(page.getByTestId('refused')).toBeAttached();
  // Nothing below claims otherwise: no timeline is promised, and the probe says why it has no status.
  await expect(page.locator('.timeline-pending')).toHaveText('No timeline: the deployment was refused before it served a request.');
  await expect(page.getByTestId('probe-outcome')).toHaveText(/^Refused: the deployment capacity check refused the deployment/, { timeout: 60_000 });
});

test('the counter and the story agree at every instant: before, in flight, sent', async ({ page }) => {
  await story(page, '');
  const counter = page.getByTestId('leaks-so-far');
  const when = page.getByTestId('story-when');
  await expect(when).toHaveAttribute('data-phase', 'in-flight');
  await expect(counter).toHaveAttribute('data-count', '0');
  await toTheAnswer(page);
  await expect(when).toHaveText(/^Sent at .*: leaked response 1 of 155 in this run\./);
  await expect(counter).toHaveAttribute('data-count', '1');
  // The opening instant is in the URL, to the microsecond: a link to it without a handoff clock
  // stands there, just after the answer went out.
  const opened = Number(new URL(page.url()).searchParams.get('t'));
  const req = new URL(page.url()).searchParams.get('req');
  expect(req).not.toBeNull();
  // Two microseconds earlier the answer is still being written: not sent, not counted.
  await story(page, `t=${(opened - 0.002).toFixed(3)}&req=${req}`);
  await expect(when).toHaveAttribute('data-phase', 'in-flight');
  await expect(when).toContainText('At this instant it is in flight');
  await expect(counter).toHaveAttribute('data-count', '0');
  await story(page, `t=${opened.toFixed(3)}&req=${req}`);
  await expect(when).toHaveAttribute('data-phase', 'answered');
  await expect(counter).toHaveAttribute('data-count', '1');
  // The scrubber's ends: before it arrived nothing is sent; at the end every leak is.
  await page.getByTestId('scrubber').focus();
  await page.keyboard.press('Home');
  await expect(when).toHaveAttribute('data-phase', 'before');
  await expect(counter).toHaveAttribute('data-count', '0');
  await page.keyboard.press('End');
  await expect(when).toHaveAttribute('data-phase', 'answered');
  await expect(counter).toHaveAttribute('data-count', '155');
});

test('in French, the fixed reject path’s story is French and from the run', async ({ page }) => {
  await story(page, 'd=gap&lang=fr');
  await expect(page.getByTestId('story-title')).toHaveText('Une requête trop longue pour être servie, refusée à l’admission\u00a0: HTTP 400, rien de réservé');
  await expect(page.getByTestId('story-computed')).toHaveText('0');
  await expect(page.getByTestId('story-when')).toContainText('Réponse HTTP 400 envoyée le');
  await expect(page.getByTestId('story-explain')).toContainText('refusée à l’admission');
});

test('switched in the Explore drawer, the story follows the run: the fixed reject path, then the defect back', async ({ page }) => {
  await story(page, '');
  const title = page.getByTestId('story-title');
  await expect(title).toHaveText('A request too long to serve, answered anyway from other customers’ memory');
  const sent = (await page.getByTestId('story-sent').textContent())!;
  await toTheAnswer(page);
  await openExplore(page);
  await page.getByTestId('explore').getByRole('switch', { name: /Buggy reject path/ }).uncheck();
  // The same request, at the same instant, in the new run: refused at admission, nothing reserved.
  await expect(title).toHaveText('A request too long to serve, refused at admission: HTTP 400, nothing reserved', { timeout: 90_000 });
  await expect(page.getByTestId('story-sent')).toHaveText(sent);
  await expect(page.getByTestId('story-computed')).toHaveText('0');
  await expect(page.getByTestId('story-reserved')).toHaveText('0');
  await expect(page.getByTestId('story-when')).toHaveAttribute('data-phase', 'answered');
  await expect(page.getByTestId('leaks-so-far')).toHaveAttribute('data-count', '0');
  await expect(page.getByTestId('leaks-so-far')).toContainText('of 0');
  await page.getByTestId('explore').getByRole('switch', { name: /Buggy reject path/ }).check();
  await expect(title).toHaveText('A request too long to serve, answered anyway from other customers’ memory', { timeout: 90_000 });
  await expect(page.getByTestId('leaks-so-far')).toHaveAttribute('data-count', '1');
});
