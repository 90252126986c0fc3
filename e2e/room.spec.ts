/**
 * A workshop room end to end: the room server (npm run workshop's, over the built dist/) on a port
 * of its own with a fresh data file; a presenter and five attendees (one a phone at 390×844, one in
 * French) follow a chapter, answer its question, the presenter's panel counts them and, on reveal,
 * every phone shows the room's split beside the right answer. The server is killed mid-way and
 * started again on the same data file: every acknowledged answer and the beat are still there, the
 * phones reconnect on their own and the answers given meanwhile arrive. And a page with no room
 * opens no socket. An attendee who looks around (a scrub, another view) stops following until they
 * go back to the presenter, who lands them on the current beat.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from '@playwright/test';
import { replay } from '../src/room/state.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { expect as baseExpect, settled, test } from './fixtures.ts';
import { inRoom as inRoomOf, open, ROOM, type Room } from './roomHarness.ts';
import { smallestText } from './textSize.ts';

const KEY = 'e2e_presenter_key';
/** ROOM_SHOTS=dir: screenshots of the room's views go there (for a person to look at). */
const SHOTS = process.env.ROOM_SHOTS;
/**
 * The room's questions on the projector, at 1280×720 and at 1920×1080: every text 20 px (30 px) or more,
 * the panel inside the window, over none of the card's words, the gain (if any) whole.
 */
async function quizOnProjector(page: Page, name: string): Promise<void> {
  for (const { width, height, scale } of [{ width: 1280, height: 720, scale: 1 }, { width: 1920, height: 1080, scale: 1.5 }]) {
    await page.setViewportSize({ width, height });
    await settled(page);
    const text = await smallestText(page, { within: '[data-testid="screen-live"]', under: 20 * scale, exclude: ['.sr-only'] });
    expect(text.under.map((s) => `${s.px} px ${s.element}: ${s.text}`), `${name} at ${width}×${height}`).toEqual([]);
    const problems = await page.evaluate(() => {
      const quiz = document.querySelector('[data-testid="screen-quiz"]')!;
      const q = quiz.getBoundingClientRect();
      const out: string[] = [];
      if (q.top < 0 || q.left < 0 || q.right > innerWidth + 0.5 || q.bottom > innerHeight + 0.5) out.push(`the panel outside the window: ${JSON.stringify(q)}`);
      if (quiz.scrollHeight > quiz.clientHeight + 1) out.push(`the panel's content cut: ${quiz.scrollHeight} in ${quiz.clientHeight}`);
      for (const el of document.querySelectorAll('.screen-card :is(h1, p, li)')) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > q.left && r.left < q.right && r.bottom > q.top && r.top < q.bottom) out.push(`covers the card's "${(el.textContent ?? '').slice(0, 40)}"`);
      }
      return out;
    });
    expect(problems, `${name} at ${width}×${height}`).toEqual([]);
    await shot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

/** A picture of the page at rest: one taken while a phone's smooth scroll runs shows tiles not yet drawn (blank bands). */
const shot = async (p: Page, name: string) => {
  if (!SHOTS) return;
  await settled(p);
  await p.screenshot({ path: join(SHOTS, `${name}.png`) });
};
const panel = (p: Page) => p.getByTestId('walkthrough');
const roomBar = (p: Page) => p.getByTestId('room-bar');
const question = (p: Page) => panel(p).getByTestId('room-question');

test.describe.configure({ mode: 'serial' });

/**
 * Up to six pages on a loaded machine's two cores: a page's load (the incident's run on every phone at
 * once), a reconnection after a restart, take far longer than on a workstation. Upper bounds only:
 * every wait is for a state the pages declare.
 */
const expect = baseExpect.configure({ timeout: 180_000 });

/** These tests start the server with a known key. */
const inRoom = (body: (room: Room) => Promise<void>) => inRoomOf(body, { key: KEY });

test('a presenter and five phones: follow, answer, count, reveal; the server killed and restarted loses no acknowledged answer', async ({ browser }) => {
  test.setTimeout(600_000);
  await inRoom(async ({ base, data, people, stopServer, restartServer }) => {
    // Five attendees wait in the room before the talk starts; one is a phone, one reads French.
    const attendeeOptions: Parameters<Browser['newContext']>[0][] = [
      { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
      // The French one reads on a phone in dark mode too.
      { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark' },
      {},
      {},
      {},
    ];
    const attendees = await Promise.all(
      attendeeOptions.map((o, i) => open(browser, base, `./?room=${ROOM}${i === 1 ? '&lang=fr' : ''}`, `attendee ${i + 1}`, o)),
    );
    people.push(...attendees);
    for (const a of attendees) await expect(roomBar(a.page)).toHaveAttribute('data-link', 'open');
    await expect(roomBar(attendees[1]!.page)).toContainText('Salle talk');

    // The presenter opens chapter 2 (its question comes first) with the key; reduced motion plays the waits at once.
    const presenter = await open(browser, base, `./?room=${ROOM}&ch=2#key=${KEY}`, 'presenter', { reducedMotion: 'reduce' });
    people.push(presenter);
    await expect(roomBar(presenter.page)).toHaveAttribute('data-role', 'presenter');
    await expect(panel(presenter.page)).toHaveAttribute('data-status', 'checkpoint');

    // Everyone follows: chapter 2, at its question, open for answers.
    for (const a of attendees) {
      await expect(panel(a.page)).toHaveAttribute('data-chapter', '2');
      await expect(question(a.page)).toHaveAttribute('data-open', 'true');
    }
    await expect(question(attendees[1]!.page)).toContainText('Quand les requêtes de préchauffage se termineront');

    // One looks around (the chapter before), then goes back to the presenter.
    const looker = attendees[2]!.page;
    await panel(looker).getByTestId('walk-prev').click();
    await expect(panel(looker)).toHaveAttribute('data-chapter', '1');
    await looker.getByTestId('room-back').click();
    await expect(panel(looker)).toHaveAttribute('data-chapter', '2');
    await expect(looker.getByTestId('room-back')).toHaveCount(0);

    // Three answer (the phone by touch, the others by click and by keyboard), and the room acknowledges them.
    const choices = [1, 0, 1, 2, 1];
    await question(attendees[0]!.page).getByTestId('room-option').nth(choices[0]!).tap();
    await shot(attendees[0]!.page, 'phone-en-question');
    await question(attendees[1]!.page).getByTestId('room-option').nth(choices[1]!).tap();
    const kb = question(attendees[2]!.page).getByTestId('room-option').nth(choices[2]!);
    await kb.focus();
    await attendees[2]!.page.keyboard.press('Enter');
    for (const a of attendees.slice(0, 3)) await expect(question(a.page)).toHaveAttribute('data-state', 'acked');
    const tally = panel(presenter.page).getByTestId('room-tally');
    await expect(tally).toHaveAttribute('data-count', '3');

    // The server dies. What it acknowledged, and the beat, are on disk.
    await stopServer();
    const onDisk = replay(readFileSync(data, 'utf8'));
    expect(onDisk.chapter).toBe(2);
    expect(onDisk.beat).toBe(0);
    expect(onDisk.answers.get('ch:2')?.size).toBe(3);
    for (const p of [...attendees, presenter]) await expect(roomBar(p.page)).toHaveAttribute('data-link', 'reconnecting');

    // Two answer while it is down: their answers wait, unacknowledged.
    await question(attendees[3]!.page).getByTestId('room-option').nth(choices[3]!).click();
    await question(attendees[4]!.page).getByTestId('room-option').nth(choices[4]!).click();
    for (const a of attendees.slice(3)) await expect(question(a.page)).toHaveAttribute('data-state', 'sending');

    // Restarted on the same data file: everyone reconnects by themselves and the waiting answers arrive.
    await restartServer();
    for (const p of [...attendees, presenter]) await expect(roomBar(p.page)).toHaveAttribute('data-link', 'open');
    for (const a of attendees) await expect(question(a.page)).toHaveAttribute('data-state', 'acked');
    await expect(tally).toHaveAttribute('data-count', '5');
    await expect(tally.getByTestId('room-count')).toContainText('5 answered');
    await shot(presenter.page, 'presenter-count');
    await shot(attendees[1]!.page, 'phone-fr-dark-acked');

    // The presenter reveals (Next twice: point at the question, then reveal): the split reaches every phone.
    await presenter.page.getByTestId('walk-next').click();
    await expect(panel(presenter.page).getByTestId('checkpoint').getByRole('status')).toContainText('press Next again');
    await presenter.page.getByTestId('walk-next').click();
    await expect(panel(presenter.page)).toHaveAttribute('data-status', /done|running/);
    const expected = [0, 1, 2].map((o) => choices.filter((c) => c === o).length).join(',');
    await expect(tally).toHaveAttribute('data-revealed', expected);
    await expect(tally.locator('[data-right="true"]')).toHaveAttribute('data-count', '3');
    for (const [i, a] of attendees.entries()) {
      const t = panel(a.page).getByTestId('room-tally');
      await expect(t).toHaveAttribute('data-revealed', expected);
      await expect(panel(a.page).getByTestId('checkpoint-result')).toHaveAttribute('data-correct', choices[i] === 1 ? 'true' : 'false');
      // And they follow the presenter to the chapter's end.
      await expect(panel(a.page)).toHaveAttribute('data-status', 'done');
    }
    await expect(panel(attendees[1]!.page).getByTestId('room-distribution')).toContainText('bonne réponse');
    expect((await smallestText(attendees[2]!.page, { within: '[data-testid="walkthrough"]', under: 12 })).under).toEqual([]);
    await tally.scrollIntoViewIfNeeded();
    await shot(presenter.page, 'presenter-distribution');
    for (const [i, name] of [[0, 'phone-en-revealed'], [1, 'phone-fr-dark-revealed']] as const) {
      await panel(attendees[i]!.page).getByTestId('room-tally').scrollIntoViewIfNeeded();
      await shot(attendees[i]!.page, name);
    }

    // A late joiner lands on the presenter's beat, on a slow network too: its text arrives 2 s late (or
    // once the room has spoken, if the page joined the room before it mounted, as it once did: the
    // mount then took the link's "no chapter" for the attendee leaving the talk).
    const late = await open(browser, base, `./?room=${ROOM}`, 'late', {}, undefined, async (page) => {
      let release: () => void = () => {};
      const released = new Promise<void>((done) => (release = done));
      page.on('websocket', (ws) => ws.on('framereceived', (f) => String(f.payload).includes('"type":"room"') && release()));
      await page.route(/\/assets\/(en|fr)-[^/]+\.js$/, async (route) => {
        await Promise.race([released, new Promise((done) => setTimeout(done, 2_000))]);
        await route.continue();
      });
    });
    people.push(late);
    await expect(panel(late.page)).toHaveAttribute('data-chapter', '2');
    await expect(panel(late.page)).toHaveAttribute('data-status', 'done');

    for (const p of people) {
      expect(p.foreign, `${p.name}: requests to other origins`).toEqual([]);
      expect(p.cspErrors, `${p.name}: CSP errors`).toEqual([]);
    }
  });
});

test('an attendee looks around: a scrub or another view lets go of the presenter, whose beats then leave the page as it is, until "back to the presenter" lands on the current beat', async ({ browser }) => {
  test.setTimeout(480_000);
  await inRoom(async ({ base, people }) => {
    // The presenter holds chapter 5 at its first beat and steps beat by beat; one attendee follows.
    const presenter = await open(browser, base, `./?room=${ROOM}&ch=5&beat=0#key=${KEY}`, 'presenter', { reducedMotion: 'reduce' });
    const attendee = await open(browser, base, `./?room=${ROOM}`, 'attendee', { reducedMotion: 'reduce' });
    people.push(presenter, attendee);
    const a = attendee.page;
    const scrubber = (p: Page) => p.getByTestId('scrubber');
    const instant = (p: Page) => scrubber(p).getAttribute('aria-valuenow');
    const step = async (beat: number) => {
      await presenter.page.getByTestId('walk-next').click();
      await expect(panel(presenter.page)).toHaveAttribute('data-beat', String(beat));
      // The room has told the attendee's page.
      await expect(roomBar(a)).toHaveAttribute('data-room-beat', String(beat));
    };
    await expect(panel(presenter.page)).toHaveAttribute('data-status', 'held');
    await expect(panel(a)).toHaveAttribute('data-chapter', '5');
    await step(1);
    await expect(panel(a)).toHaveAttribute('data-beat', '1');
    await expect(scrubber(a)).toHaveAttribute('aria-valuenow', (await instant(presenter.page))!);
    await expect(a.getByTestId('room-back')).toHaveCount(0);

    // A scrub by keyboard on the timeline: the attendee looks around, and the way back shows.
    await scrubber(a).focus();
    await a.keyboard.press('End');
    const scrubbed = (await scrubber(a).getAttribute('aria-valuemax'))!;
    await expect(scrubber(a)).toHaveAttribute('aria-valuenow', scrubbed);
    await expect(roomBar(a)).toHaveAttribute('data-following', 'false');
    await expect(a.getByTestId('room-back')).toBeVisible();
    // The presenter goes on: the attendee's page stays where they put it.
    await step(2);
    expect(await instant(presenter.page)).not.toBe(scrubbed);
    await expect(panel(a)).toHaveAttribute('data-beat', '1');
    await expect(scrubber(a)).toHaveAttribute('aria-valuenow', scrubbed);
    await expect(a.getByTestId('room-back')).toBeVisible();
    // Back to the presenter: their current beat, its instant.
    await a.getByTestId('room-back').click();
    await expect(panel(a)).toHaveAttribute('data-beat', '2');
    await expect(scrubber(a)).toHaveAttribute('aria-valuenow', (await instant(presenter.page))!);
    await expect(a.getByTestId('room-back')).toHaveCount(0);

    // Another view is looking around too; the presenter's next beat leaves it, back lands on that beat's view.
    await a.locator('#tab-transfer').click();
    await expect(a.getByTestId('room-back')).toBeVisible();
    await step(3);
    await expect(a.locator('#tab-transfer')).toHaveAttribute('aria-selected', 'true');
    await expect(panel(a)).toHaveAttribute('data-beat', '2');
    await a.getByTestId('room-back').click();
    await expect(panel(a)).toHaveAttribute('data-beat', '3');
    await expect(a.locator('#tab-transfer')).toHaveAttribute('aria-selected', 'false');
    await expect(roomBar(a)).toHaveAttribute('data-following', 'true');
  });
});

test('the three questions before and after: phones answer, the presenter reveals, the room\u2019s gain and its CSV; the screen layout counts a chapter\u2019s answers', async ({ browser }) => {
  test.setTimeout(480_000);
  await inRoom(async ({ base, people }) => {
    const presenter = await open(browser, base, `./?room=${ROOM}&ch=1#key=${KEY}`, 'presenter', { reducedMotion: 'reduce' });
    const phones = await Promise.all([0, 1].map((i) => open(browser, base, `./?room=${ROOM}${i ? '&lang=fr' : ''}`, `phone ${i}`, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })));
    people.push(presenter, ...phones);
    // The presenter shows the phones' address, written and as a QR code drawn in the page.
    await presenter.page.getByTestId('room-address-toggle').click();
    await expect(presenter.page.getByTestId('room-address').getByRole('img')).toHaveAttribute('aria-label', new RegExp(`${base.replace(/[/.]/g, '\\$&')}\\?room=${ROOM}`));
    await shot(presenter.page, 'presenter-address-qr');
    await presenter.page.getByTestId('room-address-toggle').click();
    const pre = presenter.page.locator('[data-testid="room-presenter-quiz"][data-phase="pre"]');
    await expect(pre.getByTestId('room-quiz-open')).toBeEnabled();
    await pre.getByTestId('room-quiz-open').click();
    // Before: phone 0 gets one of three right, phone 1 none.
    const answersPre = [[1, 0, 0], [0, 0, 0]];
    const answersPost = [[1, 2, 1], [1, 2, 0]];
    const answerQuiz = async (phase: string, answers: number[][]) => {
      for (const [i, p] of phones.entries()) {
        const quiz = p.page.locator(`[data-testid="room-quiz"][data-phase="${phase}"]`);
        await expect(quiz).toBeVisible();
        for (let q = 0; q < 3; q++) await quiz.getByTestId('room-question').nth(q).getByTestId('room-option').nth(answers[i]![q]!).tap();
        for (let q = 0; q < 3; q++) await expect(quiz.getByTestId('room-question').nth(q)).toHaveAttribute('data-state', 'acked');
      }
    };
    await answerQuiz('pre', answersPre);
    await expect(pre.getByTestId('room-tally').first()).toHaveAttribute('data-count', '2');
    await pre.getByTestId('room-quiz-reveal').click();
    await expect(phones[1]!.page.getByTestId('room-quiz').getByTestId('room-distribution').first()).toContainText('bonne réponse');
    await shot(phones[1]!.page, 'phone-fr-quiz-revealed');
    for (const p of [presenter, phones[1]!]) {
      const axe = await new AxeBuilder({ page: p.page }).include('[data-testid="room-bar"]').include('[data-testid="room-quiz"]').include('[data-testid="room-presenter-quiz"]').analyze();
      expect(axe.violations.map((v) => `${p.name} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
    await phones[0]!.page.getByTestId('room-quiz-hide').click();
    await expect(phones[0]!.page.getByTestId('room-quiz')).toHaveCount(0);

    // The screen layout's title shows the questions before and the room's split.
    await presenter.page.goto(`./?room=${ROOM}&screen&pm=1#key=${KEY}`);
    const screenQuiz = presenter.page.getByTestId('screen-quiz');
    await expect(screenQuiz).toHaveAttribute('data-phase', 'pre');
    await expect(screenQuiz.getByTestId('room-tally').first()).toHaveAttribute('data-revealed', '1,1,0');
    // The key off the wall: read from the fragment, gone from the address bar, kept in the link the presenter copies.
    await expect.poll(() => presenter.page.url()).not.toContain('key=');
    await quizOnProjector(presenter.page, 'screen-quiz-pre');
    // Escape goes back to the page with nothing half closed (the walkthrough at chapter 1, where the
    // questions before are), and "Screen layout" returns to the title, where the quiz is.
    await settled(presenter.page);
    await presenter.page.keyboard.press('Escape');
    await expect(presenter.page.getByTestId('walkthrough')).toHaveAttribute('data-chapter', '1');
    await expect(presenter.page.getByTestId('walk-screen-layout')).toHaveAttribute('href', new RegExp(`#key=${KEY}$`));
    await presenter.page.getByTestId('walk-screen-layout').click();
    await expect(presenter.page.getByTestId('screen-live')).toHaveAttribute('data-scene', 'title');
    await expect(screenQuiz).toHaveAttribute('data-phase', 'pre');

    // The screen layout of the room, at a chapter's question: the count shows beside the picture.
    await presenter.page.goto(`./?room=${ROOM}&ch=2&screen#key=${KEY}`);
    // The layout takes keys once it is up (at rest, its listeners are in place): from the chapter's card to its body.
    const live = presenter.page.getByTestId('screen-live');
    await expect(live).toHaveAttribute('data-scene', 'card');
    await settled(presenter.page);
    await presenter.page.keyboard.press('ArrowRight');
    await expect(live).toHaveAttribute('data-scene', 'body');
    const screenTally = presenter.page.getByTestId('screen-predict').getByTestId('room-tally');
    await expect(screenTally).toHaveAttribute('data-count', '0');
    await expect(phones[0]!.page.getByTestId('room-question')).toHaveAttribute('data-open', 'true');
    await phones[0]!.page.getByTestId('room-question').getByTestId('room-option').nth(1).tap();
    await expect(screenTally).toHaveAttribute('data-count', '1');
    await presenter.page.keyboard.press('PageDown');
    await expect(screenTally).toHaveAttribute('data-revealed', '0,1,0');
    // The split in view on the projector, by keys alone, at 1280×720 and 1920×1080.
    for (const size of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
      await presenter.page.setViewportSize(size);
      await settled(presenter.page);
      await expect(screenTally.getByTestId('room-distribution'), `${size.width}×${size.height}`).toBeInViewport({ ratio: 0.95 });
      await shot(presenter.page, `screen-layout-revealed-${size.width}`);
    }
    await presenter.page.setViewportSize({ width: 1280, height: 720 });

    // After the last chapter: the same three by the clicker's keys alone (open, then reveal), then the gain and its CSV.
    await presenter.page.goto(`./?room=${ROOM}&ch=10&pm=1#key=${KEY}`);
    const post = presenter.page.locator('[data-testid="room-presenter-quiz"][data-phase="post"]');
    await expect(post.getByTestId('room-quiz-open')).toBeEnabled();
    await expect(presenter.page.getByTestId('walkthrough')).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
    await settled(presenter.page);
    // Focus on a button: the clicker's key is the presenter's, never the button's.
    await presenter.page.getByTestId('walk-presenter').focus();
    await presenter.page.keyboard.press('PageDown');
    await expect(post.getByTestId('room-quiz-open')).toBeDisabled();
    await answerQuiz('post', answersPost);
    await presenter.page.keyboard.press(' ');
    // Before: 1 right of 6; after: 5 of 6. g = (5/6 - 1/6) / (1 - 1/6) = 0.8.
    await expect(post.getByTestId('room-gain')).toContainText('0.80');
    await expect(presenter.page.getByTestId('walk-presenter')).toHaveAttribute('aria-pressed', 'true');
    // The gain came into view by itself, at 1280×720 and, the window grown, at 1920×1080.
    for (const size of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
      await presenter.page.setViewportSize(size);
      await settled(presenter.page);
      await expect(post.getByTestId('room-gain')).toBeInViewport({ ratio: 0.95 });
    }
    await presenter.page.setViewportSize({ width: 1280, height: 720 });
    await shot(presenter.page, 'presenter-gain');
    // No room text under 12 px at 1280×720: the bar, the quiz, the bars and the gain.
    for (const within of ['[data-testid="room-presenter-quiz"]', '[data-testid="room-bar"]']) {
      expect((await smallestText(presenter.page, { within, under: 12 })).under, within).toEqual([]);
    }
    // The CSV, from the same page (the room's answers are final once revealed).
    await expect(post.getByTestId('room-export')).toBeEnabled();
    const [download] = await Promise.all([presenter.page.waitForEvent('download'), post.getByTestId('room-export').click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv).toContain('pre,1,2,1,0.5000');
    expect(csv).toContain('post,3,2,1,0.5000');
    expect(csv.trim().split('\n').at(-1)).toBe('gain,,,,0.8000');
    // And the screen layout's end card: the same three, the room's split and the gain. At rest between
    // keys, so that each press is taken once: the card, the chapter's body, the end.
    await presenter.page.goto(`./?room=${ROOM}&ch=10&screen#key=${KEY}`);
    const endLive = presenter.page.getByTestId('screen-live');
    await expect(endLive).toHaveAttribute('data-scene', 'card');
    await settled(presenter.page);
    await presenter.page.keyboard.press('ArrowRight');
    await expect(endLive).toHaveAttribute('data-scene', 'body');
    await settled(presenter.page);
    await presenter.page.keyboard.press('ArrowRight');
    await expect(endLive).toHaveAttribute('data-scene', 'end');
    await expect(presenter.page.getByTestId('screen-gain')).toContainText('0.80');
    await quizOnProjector(presenter.page, 'screen-layout-end-gain');
    for (const p of people) expect(p.foreign, `${p.name}: requests to other origins`).toEqual([]);
  });
});

test('the talk by clicker in a room, presenter mode: two presses at every chapter\u2019s end, the second while the next prepares, with focus on a button, a select or an option; every question pointed at, then revealed, none skipped, no control activated; the room\u2019s split in view after each reveal at 1280×720 and 1920×1080', async ({ browser }) => {
  test.setTimeout(480_000);
  await inRoom(async ({ base, data, people }) => {
    // What the presenter's page starts and reaches (as the recorder hears it), and what a key would do to
    // a control with focus: a click (a button, an option) or a change (a select), as the browser sends them.
    const instrument = () => {
      const told: string[] = [];
      const acted: string[] = [];
      Object.assign(window, { __told: told, __acted: acted });
      window.addEventListener('walkthrough', (e) => {
        const d = (e as CustomEvent<{ type: string; chapter: number; status?: string }>).detail;
        if (d.type === 'chapter' || d.status === 'checkpoint') told.push(`${d.chapter}:${d.status ?? 'start'}`);
      });
      for (const type of ['click', 'change', 'input'])
        document.addEventListener(type, (e) => e.isTrusted && acted.push(`${type} on ${(e.target as Element).tagName.toLowerCase()}${(e.target as Element).getAttribute('data-testid') ? `[${(e.target as Element).getAttribute('data-testid')}]` : ''}`), true);
    };
    const presenter = await open(browser, base, `./?room=${ROOM}&ch=1&pm=1#key=${KEY}`, 'presenter', { reducedMotion: 'reduce' }, instrument);
    const phone = await open(browser, base, `./?room=${ROOM}`, 'phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' });
    people.push(presenter, phone);
    const page = presenter.page;
    await expect(roomBar(page)).toHaveAttribute('data-role', 'presenter');
    expect(await page.evaluate(() => (window as unknown as { __acted: string[] }).__acted)).toEqual([]);
    // Every forward key a clicker or a keyboard sends, in turn.
    const forward = [' ', 'PageDown', 'ArrowRight', 'Enter'];
    let press = 0;
    const click = () => page.keyboard.press(forward[press++ % forward.length]!);
    /** Something with focus that a key would activate or change: the presenter-mode button, the language button, a select, an option. */
    const focusSomething = async (k: number): Promise<string> => {
      const select = page.locator('select:visible').first();
      const radio = page.getByTestId('checkpoint').getByRole('radio').first();
      if (k % 4 === 2 && (await select.count()) > 0) return (await select.focus(), 'select');
      if (k % 4 === 3 && (await radio.count()) > 0 && (await radio.isEnabled())) return (await radio.focus(), 'option');
      if (k % 4 === 1) return (await page.getByTestId('walk-lang').focus(), 'the language button');
      return (await page.getByTestId('walk-presenter').focus(), 'the presenter-mode button');
    };
    const controls = async () => ({
      presenter: await page.getByTestId('walk-presenter').getAttribute('aria-pressed'),
      lang: await page.locator('html').getAttribute('lang'),
      acted: await page.evaluate(() => (window as unknown as { __acted: string[] }).__acted.length),
    });
    /** At its stop, the page at rest (a press kept for a chapter that prepared is taken by then). */
    const stopped = async () => {
      await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/);
      await settled(page);
      await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/);
    };
    // The questions before, by the same key: open, then reveal (with no answer), then the talk goes on.
    const pre = page.locator('[data-testid="room-presenter-quiz"][data-phase="pre"]');
    await stopped();
    await click();
    await expect(pre.getByTestId('room-quiz-open')).toBeDisabled();
    await click();
    await expect(pre.getByTestId('room-tally').first()).toHaveAttribute('data-revealed', '0,0,0');
    await phone.page.getByTestId('room-quiz-hide').click();

    const revealed: number[] = [];
    for (let k = 0; ; k++) {
      await stopped();
      const n = Number(await panel(page).getAttribute('data-chapter'));
      if ((await panel(page).getAttribute('data-status')) === 'checkpoint') {
        // The phone, on the question, answers the first option.
        await expect(panel(phone.page)).toHaveAttribute('data-chapter', String(n));
        await question(phone.page).getByTestId('room-option').first().tap();
        await expect(question(phone.page)).toHaveAttribute('data-state', 'acked');
        if (n === 2) {
          // A phone that keeps changing its mind: nine changes taken (ten answers, the room's bound), the
          // eleventh refused in words that say why and which answer still counts.
          for (let change = 1; change <= 10; change++) {
            await question(phone.page).getByTestId('room-option').nth(change % 2).tap();
            await expect(question(phone.page)).toHaveAttribute('data-state', change < 10 ? 'acked' : 'refused');
          }
          const kept = (await question(phone.page).getByTestId('room-option').nth(1).textContent())!.replace(/^\s*\d\s*/, '').trim();
          await expect(question(phone.page).getByTestId('room-answer-status')).toHaveText(`Not taken: you have changed this answer as many times as the room allows. Your answer \u201c${kept}\u201d still counts.`);
          await expect(question(phone.page).getByTestId('room-option').nth(1)).toHaveAttribute('aria-pressed', 'true');
        }
        const tally = panel(page).getByTestId('room-tally');
        await expect(tally).toHaveAttribute('data-count', '1');
        // Pointed at already by a press made while the chapter prepared, or now by one.
        const hint = page.getByTestId('checkpoint').getByRole('status');
        if (!/press Next again to reveal/.test((await hint.textContent()) ?? '')) {
          await focusSomething(k);
          await click();
          await expect(hint).toContainText('press Next again to reveal');
        }
        await expect(page.getByTestId('checkpoint').getByRole('radio', { checked: true })).toHaveCount(0);
        await focusSomething(k + 1);
        await click();
        await expect(tally).not.toHaveAttribute('data-revealed', '');
        // Revealed as the presenter asked, by keys alone: no option of the presenter's taken on the way.
        await expect(page.getByTestId('checkpoint-result')).toContainText('Revealed without an answer');
        await expect(page.getByTestId('checkpoint').getByRole('radio', { checked: true })).toHaveCount(0);
        revealed.push(n);
        await stopped();
        // The room's split came into view by keys alone, and stays in view as the window grows to 1080p.
        for (const size of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
          await page.setViewportSize(size);
          await settled(page);
          await expect(tally.getByTestId('room-distribution'), `chapter ${n} at ${size.width}×${size.height}`).toBeInViewport({ ratio: 0.95 });
          await shot(page, `presenter-clicker-ch${n}-revealed-${size.width}`);
        }
        await page.setViewportSize({ width: 1280, height: 720 });
        await settled(page);
        await expect(panel(phone.page).getByTestId('room-tally')).toHaveAttribute('data-revealed', /\d/);
      }
      if (n === CHAPTERS.length) break;
      const before = await controls();
      const what = await focusSomething(k);
      // Two presses at once: the second lands while the next chapter prepares (its runs computed), and waits for it.
      await click();
      await click();
      await expect(panel(page)).not.toHaveAttribute('data-chapter', String(n));
      expect(await controls(), `no control activated by the presses with focus on ${what} (chapter ${n})`).toEqual(before);
    }
    expect(await page.locator('html').getAttribute('class')).toMatch(/presenter/);
    // Every chapter with a question was reached and stopped at it, and no press passed one unrevealed.
    const asking = CHAPTERS.flatMap((c, i) => (c.checkpoint ? [i + 1] : []));
    expect(revealed).toEqual(asking);
    const told = await page.evaluate(() => (window as unknown as { __told: string[] }).__told);
    for (const q of asking) expect(told, `chapter ${q} reached its question`).toContain(`${q}:checkpoint`);
    // The room was sent no chapter past a question it had not revealed.
    const lines = readFileSync(data, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; chapter?: number; question?: string });
    for (const q of asking) {
      const past = lines.findIndex((l) => l.kind === 'goto' && (l.chapter ?? 0) > q);
      const shown = lines.findIndex((l) => l.kind === 'reveal' && l.question === `ch:${q}`);
      expect(shown, `chapter ${q} revealed before the room moved past it`).toBeGreaterThanOrEqual(0);
      expect(past === -1 || shown < past, `chapter ${q} revealed before the room moved past it`).toBe(true);
    }
  });
});

test('without a room the page opens no socket; a bad room name is named and ignored', async ({ page }) => {
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await page.goto('./?room=bad%20name!');
  await expect(page.getByTestId('notices')).toContainText('room=bad name!');
  await expect(page.getByTestId('room-bar')).toHaveCount(0);
  await page.goto('./?ch=2');
  await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint');
  await expect(page.getByTestId('room-bar')).toHaveCount(0);
  expect(sockets).toEqual([]);
});
