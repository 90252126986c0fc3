/**
 * A whole talk by Next, as a presenter gives it: the presenter's laptop and five phones (390×844; two
 * in French; one dark) in a room whose server makes its own presenter key. The three questions before
 * chapter 1, every chapter by Next from the one before, every predict question answered by the phones
 * and revealed by the presenter, the three questions after, the gain. The server is killed (-9) three
 * times, at a question open, just after a reveal and mid-chapter, and started again on the same data
 * file: the same key, the presenter's open page and every phone carry on without a reload.
 *
 * No chapter is waited for in real time: the presenter's page runs on Playwright's clock (installed
 * before it loads, flowing as usual), which the test holds from the Next or the reveal that starts a
 * chapter's playing and moves on a beat at a time, never past a whole beat, until the chapter's stop;
 * at every beat the presenter reaches, every phone shows that beat before the clock moves on. The
 * phones keep their own real clocks (they reconnect on timers after each crash). Crashes mid-chapter
 * and just after a reveal happen with the presenter's clock flowing, its chapter playing on.
 *
 * Every page records, from the moment it loads, each (chapter, beat) its walkthrough shows and when
 * it first shows a question's answer (the result line, the room's split), in real time (the
 * presenter's too, not its moved clock). Checked after the talk and at every beat: no phone shows a
 * beat the presenter had not reached, none goes back within a chapter, none shows an answer before
 * the presenter's reveal; the data file holds no beat of one chapter sent with another, and exactly
 * one answer per phone and question.
 *
 * And nothing on a phone answers a question before its reveal, in words: at every beat the presenter's
 * held clock reaches, the whole page of an English phone and of a French one (dark, reduced motion),
 * as any scroll of it shows it, holds no phrase of a question still to come (`spoilerOf`), nor the
 * story of the leak while a question it answers is to come; and nothing on those phones is drawn by
 * where the page is scrolled (what could be is counted in the page and checked at the end).
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { hakeGain } from '../src/room/gain.ts';
import { replay, type RoomEvent } from '../src/room/state.ts';
import { pick } from '../src/app/i18n/messages.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { QUIZ_ANSWERS } from '../src/app/walkthrough/chapters/quiz.ts';
import { spoilerOf } from '../src/app/walkthrough/chapters/spoilers.ts';
import { beatsOf } from '../src/app/walkthrough/timeline.ts';
import { expect as baseExpect, test } from './fixtures.ts';
import { pageSays } from './pageSays.ts';
import { inRoom, open, ROOM, type Person } from './roomHarness.ts';

/**
 * Six pages on a loaded machine's two cores: a page's load, a chapter's runs computed on five phones at
 * once, a reconnection after a restart take far longer than on a workstation. Upper bounds only: every
 * wait is for a state the pages declare.
 */
const expect = baseExpect.configure({ timeout: 180_000 });
const CHAPTER_COUNT = CHAPTERS.length;
const panel = (p: Page) => p.getByTestId('walkthrough');
const bar = (p: Page) => p.locator('div.room-bar');
const question = (p: Page) => panel(p).getByTestId('room-question');

interface Watch {
  /**
   * [chapter, beat, ms since epoch, the page's performance.now()] each time the walkthrough shows
   * another beat: the first in real time, the second on the page's own (on the presenter's, moved) clock.
   */
  shown: [string, string, number, number][];
  /** When each chapter's answer (or a quiz's split) first showed: chapter number or `pre` / `post`. */
  answerSeen: Record<string, number>;
  /** [chapter, beat, ms] of each `goto` this page sent the room (the presenter's), taken as it went out. */
  sent: [string, string, number][];
  /** Real time, ms since epoch: Date.now() as it was before Playwright's clock replaced it, if it did. */
  now: () => number;
}

/**
 * Runs in every page before its scripts: records what the walkthrough shows, on every DOM change, and
 * every beat the page sends the room as it goes out (a DOM observer's record can trail the commit
 * whose effect already sent it by a whole busy frame).
 */
function watchWalkthrough(): void {
  // Playwright's clock keeps the page's own Date in `__pwClock.builtins`; read when called, as this
  // script may run before or after the clock's.
  const now = () => ((window as unknown as { __pwClock?: { builtins: { Date: DateConstructor } } }).__pwClock?.builtins.Date ?? Date).now();
  const w: Watch = { shown: [], answerSeen: {}, sent: [], now };
  (window as unknown as { __talk: Watch }).__talk = w;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: Parameters<WebSocket['send']>[0]) {
    if (typeof data === 'string' && data.includes('"goto"')) {
      const m = JSON.parse(data) as { type: string; chapter: number; beat: number };
      if (m.type === 'goto') w.sent.push([String(m.chapter), String(m.beat), now()]);
    }
    return send.call(this, data);
  };
  const check = () => {
    const walk = document.querySelector('[data-testid="walkthrough"]');
    if (walk) {
      const c = walk.getAttribute('data-chapter') ?? '';
      const b = walk.getAttribute('data-beat') ?? '';
      const last = w.shown[w.shown.length - 1];
      if (b !== '' && (!last || last[0] !== c || last[1] !== b)) w.shown.push([c, b, now(), performance.now()]);
      if (walk.querySelector('[data-testid="checkpoint-result"], [data-testid="room-distribution"]') && !(c in w.answerSeen)) w.answerSeen[c] = now();
    }
    for (const quiz of document.querySelectorAll('[data-testid="room-quiz"]')) {
      const phase = quiz.getAttribute('data-phase') ?? '';
      if (quiz.querySelector('[data-testid="room-distribution"]') && !(phase in w.answerSeen)) w.answerSeen[phase] = now();
    }
  };
  // Elements coming and going, and the three attributes read: not every attribute the views' redraws
  // touch (the page's own watch, state/settled.ts, already records those).
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-chapter', 'data-beat', 'data-phase'] });
}

/**
 * Runs in a phone before its scripts: counts what could draw the page by where it is scrolled (an
 * IntersectionObserver, a scroll listener), so that its whole text is what any scroll of it shows.
 */
function countScrollDriven(): void {
  const seen: string[] = [];
  (window as unknown as { __scrollDriven: string[] }).__scrollDriven = seen;
  const IO = window.IntersectionObserver;
  window.IntersectionObserver = class extends IO {
    constructor(...args: ConstructorParameters<typeof IntersectionObserver>) {
      super(...args);
      seen.push('IntersectionObserver');
    }
  };
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, ...rest: [EventListenerOrEventListenerObject | null, (boolean | AddEventListenerOptions)?]) {
    if (type === 'scroll' || type === 'scrollend') seen.push(`a ${type} listener on ${this === window ? 'window' : this === document ? 'document' : `${(this as Element).tagName}#${(this as Element).id}`}`);
    return add.call(this, type, ...rest);
  };
}

/** The phone's whole page in words (the questions themselves left out: they name every answer), and which parts of the story's outcome it shows. */
const wordsOf = (p: Page) => pageSays(p, '[data-testid="checkpoint"], [data-testid="room-question"]');

const watchOf = (p: Page) => p.evaluate(() => {
  const { shown, answerSeen, sent } = (window as unknown as { __talk: Watch }).__talk;
  return { shown, answerSeen, sent };
});

test('a whole talk by Next with five phones and three server crashes: every phone on the presenter\u2019s beat, no answer before its reveal (in words, on a phone\u2019s whole page, in English and French), the same key after each restart', async ({ browser }) => {
  // An upper bound for a loaded machine: the talk's time is the six pages' work (no chapter is waited
  // for in real time), about 300 s of CPU.
  test.setTimeout(900_000);
  await inRoom(async ({ base, data, people, key, stopServer, restartServer }) => {
    const firstKey = key();
    const phoneOptions: Parameters<Browser['newContext']>[0][] = [
      { lang: 'en' },
      { lang: 'fr' },
      { lang: 'fr', colorScheme: 'dark' as const, reducedMotion: 'reduce' as const },
      { lang: 'en' },
      { lang: 'en', reducedMotion: 'reduce' as const },
    ].map(({ lang: _l, ...o }) => ({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, ...o }));
    const phones: Person[] = await Promise.all(
      phoneOptions.map((o, i) => open(browser, base, `./?room=${ROOM}${i === 1 || i === 2 ? '&lang=fr' : ''}`, `phone ${i + 1}`, o, i === 0 || i === 2 ? [watchWalkthrough, countScrollDriven] : watchWalkthrough)),
    );
    /** The phones read in words at every beat: one English, one French (dark, reduced motion). */
    const readers = [
      { person: phones[0]!, lang: 'en' as const },
      { person: phones[2]!, lang: 'fr' as const },
    ];
    people.push(...phones);
    await Promise.all(phones.map((p) => expect(bar(p.page)).toHaveAttribute('data-link', 'open')));

    // The presenter opens chapter 1 with the key the server printed: its panel holds the questions before.
    // Its clock is Playwright's, flowing as the real one until the test moves it on (`presenterPlays`).
    const presenter = await open(browser, base, `./?room=${ROOM}&ch=1#key=${firstKey}`, 'presenter', {}, watchWalkthrough, (page) => page.clock.install());
    people.push(presenter);
    const pp = presenter.page;
    await expect(bar(pp)).toHaveAttribute('data-role', 'presenter');
    /** When the presenter revealed each question (ms since epoch, taken just before the click). */
    const revealedAt: Record<string, number> = {};
    /** Moments the server was down: beats the presenter showed then never reached a phone. */
    const downtimes: [number, number][] = [];
    const crash = async (restartWhile?: () => Promise<void>) => {
      const t0 = Date.now();
      await stopServer();
      await Promise.all([...phones, presenter].map((p) => expect(bar(p.page), p.name).toHaveAttribute('data-link', 'reconnecting')));
      await restartWhile?.();
      await restartServer();
      downtimes.push([t0, Date.now()]);
      expect(key(), 'the restarted server keeps its presenter key').toBe(firstKey);
      await Promise.all([...phones, presenter].map((p) => expect(bar(p.page), p.name).toHaveAttribute('data-link', 'open')));
    };

    const answerQuiz = async (phase: 'pre' | 'post', choices: number[][]) => {
      const box = pp.locator(`[data-testid="room-presenter-quiz"][data-phase="${phase}"]`);
      await expect(box.getByTestId('room-quiz-open')).toBeEnabled();
      await box.getByTestId('room-quiz-open').click();
      // The phones answer at once, as a room does.
      await Promise.all(
        phones.map(async (p, i) => {
          const quiz = p.page.locator(`[data-testid="room-quiz"][data-phase="${phase}"]`);
          await expect(quiz, p.name).toBeVisible();
          // Opened, the phone shows the first of the three questions, not the last.
          await expect(quiz.getByTestId('room-question').first(), p.name).toBeInViewport();
          for (let q = 0; q < 3; q++) await quiz.getByTestId('room-question').nth(q).getByTestId('room-option').nth(choices[i]![q]!).tap();
          for (let q = 0; q < 3; q++) await expect(quiz.getByTestId('room-question').nth(q), p.name).toHaveAttribute('data-state', 'acked');
        }),
      );
      for (let q = 0; q < 3; q++) await expect(box.getByTestId('room-tally').nth(q)).toHaveAttribute('data-count', String(phones.length));
      revealedAt[phase] = Date.now();
      await box.getByTestId('room-quiz-reveal').click();
      await Promise.all(phones.map((p) => expect(p.page.locator(`[data-testid="room-quiz"][data-phase="${phase}"]`).getByTestId('room-distribution').first(), p.name).toBeVisible()));
      // Revealed, the questions cannot be opened again.
      await expect(box.getByTestId('room-quiz-open')).toBeDisabled();
      await Promise.all(phones.map((p) => p.page.getByTestId('room-quiz-hide').click()));
    };

    // The three questions before: two of five phones right on each, say.
    const pre = phones.map((_, i) => QUIZ_ANSWERS.map((right, q) => ((i + q) % 3 === 0 ? right : (right + 1) % 3)));
    await answerQuiz('pre', pre);

    const fold = (x: string) => x.replace(/[\u00a0\u202f\s]+/g, ' ').trim().toLowerCase();
    const asking = CHAPTERS.flatMap((c, i) => (c.checkpoint ? [i + 1] : []));
    const spoiled: string[] = [];
    let looks = 0;
    /** The reading phones' whole pages at the presenter's beat, which they show: nothing of a question still to come. */
    const readPhones = async (where: string) => {
      const toCome = asking.filter((q) => revealedAt[String(q)] === undefined);
      if (toCome.length === 0) return;
      for (const { person: p, lang } of readers) {
        const seen = await wordsOf(p.page);
        looks++;
        const text = fold(seen.text);
        for (const q of toCome) {
          for (const phrase of spoilerOf(q)!.phrases) {
            // As the page shows it: French typeset (’ for ', no-break spaces), as spoilers.spec.ts reads it.
            const said = pick(lang, phrase.en, phrase.fr);
            if (text.includes(fold(said))) spoiled.push(`${p.name}, ${where}: question ${q}'s "${said.slice(0, 50)}…"`);
          }
        }
        // The story's outcome (what prefill computed, the status, whose data leaked) answers the questions whose chapters say so.
        if (toCome.some((q) => CHAPTERS[q - 1]!.checkpoint!.firstScreenTells)) for (const id of seen.told) spoiled.push(`${p.name}, ${where}: the story's ${id}`);
      }
    };

    /** Every phone shows `chapter` and `beat` (by default the presenter's, read once: it is at a stop or its clock is held). */
    const allOnPresenterBeat = async (chapter?: string, beat?: string) => {
      chapter ??= (await panel(pp).getAttribute('data-chapter'))!;
      beat ??= (await panel(pp).getAttribute('data-beat'))!;
      await Promise.all(
        phones.map(async (p) => {
          await expect(panel(p.page), p.name).toHaveAttribute('data-chapter', chapter);
          await expect(panel(p.page), p.name).toHaveAttribute('data-beat', beat);
        }),
      );
    };

    /**
     * The presenter's clock: flowing (Playwright's clock as installed, at the real pace) or held since
     * `heldAt` (the page's performance.now()), moved on only by the test.
     */
    let heldAt: number | null = null;
    /** Holds the presenter's clock, unless it is held (moving it on by at most 200 ms first, less than any beat lasts). */
    const holdPresenterClock = async () => {
      if (heldAt !== null) return;
      const now = await pp.evaluate(() => Date.now());
      // A target already passed (the page's clock flowed on meanwhile) throws once the clock is held.
      await pp.clock.pauseAt(now + 200).catch((e: Error) => {
        if (!/past/.test(e.message)) throw e;
      });
      heldAt = await pp.evaluate(() => performance.now());
    };
    const releasePresenterClock = async () => {
      heldAt = null;
      await pp.clock.resume();
    };

    /**
     * Plays the presenter's chapter to its stop (its question or its end; with `toBeat`, until that
     * beat) on its held clock (held before the Next or the reveal that starts it, so that no beat
     * plays unseen), then lets the clock flow again. While the chapter's runs are computed the clock
     * is moved on 100 ms at a time (the page's own waits for a frame or a task take their turn). Then
     * each jump (one frame) is at most 350 ms, or what is surely left of the beat on screen: no jump
     * passes a whole beat (the shortest lasts 400 ms), so every beat is shown and told to the room. A
     * beat first shown on the held clock has been playing at most since it was shown plus the jump
     * that brought it (it began after the frame before; the first of a play begins on the frame after
     * it, one 16 ms jump on). At each beat every phone shows it before the next jump: the phones are
     * never sent beats faster than they show them.
     */
    const presenterPlays = async (toBeat = Infinity) => {
      await holdPresenterClock();
      try {
        let paced = '';
        /** The jump before the current beat was first seen, and the last one. */
        let brought = 0;
        let jump = 0;
        let fresh = false;
        for (;;) {
          const at = await pp.evaluate(() => {
            const walk = document.querySelector('[data-testid="walkthrough"]')!;
            const [chapter, beat, status] = ['data-chapter', 'data-beat', 'data-status'].map((a) => walk.getAttribute(a)!);
            const last = (window as unknown as { __talk: Watch }).__talk.shown.at(-1);
            return { chapter, beat, status, shownAt: last && last[0] === chapter && last[1] === beat ? last[3] : null, now: performance.now() };
          });
          if (at.beat === '') {
            jump = 100;
            await pp.clock.fastForward(jump);
            continue;
          }
          if (paced !== `${at.chapter}/${at.beat}`) {
            paced = `${at.chapter}/${at.beat}`;
            brought = jump;
            fresh = true;
            await allOnPresenterBeat(at.chapter, at.beat);
            await readPhones(`chapter ${at.chapter} beat ${at.beat}`);
          }
          if (at.status !== 'running' || Number(at.beat) >= toBeat) return;
          if (fresh) {
            // One frame first: the first beat of a play starts the chapter's clock on the frame after it.
            fresh = false;
            jump = 16;
          } else {
            const ms = beatsOf(CHAPTERS[Number(at.chapter) - 1]!.steps)[Number(at.beat)]!.ms;
            const onScreenAtMost = at.shownAt !== null && at.shownAt >= heldAt! ? at.now - at.shownAt + brought : Infinity;
            jump = Math.round(Math.max(350, ms - onScreenAtMost - 50));
          }
          await pp.clock.fastForward(jump);
        }
      } finally {
        await releasePresenterClock();
      }
    };
    const choices = [1, 0, 2, 1, 0];

    for (let n = 1; n <= CHAPTER_COUNT; n++) {
      if (n > 1) {
        await expect(panel(pp)).toHaveAttribute('data-status', 'done');
        await holdPresenterClock();
        await pp.getByTestId('walk-next').click();
      }
      await expect(panel(pp)).toHaveAttribute('data-chapter', String(n));
      if (n === 7) {
        // Mid-chapter: the server dies while the presenter's chapter plays on (its clock flowing again).
        await presenterPlays(1);
        await crash();
      }
      if (n === 5) {
        // One phone looks around (another view), then goes back to the presenter: the current beat
        // (the presenter's chapter playing on meanwhile, its clock flowing).
        await presenterPlays(0);
        const looker = phones[3]!.page;
        await expect(panel(looker)).toHaveAttribute('data-chapter', '5');
        await looker.locator('#tab-transfer').click();
        await expect(bar(looker)).toHaveAttribute('data-following', 'false');
        await looker.getByTestId('room-back').click();
        await expect(bar(looker)).toHaveAttribute('data-following', 'true');
        await expect.poll(async () => (await panel(looker).getAttribute('data-beat')) === (await bar(looker).getAttribute('data-room-beat'))).toBe(true);
      }
      await presenterPlays();
      await expect(panel(pp)).toHaveAttribute('data-status', /checkpoint|done/);
      if ((await panel(pp).getAttribute('data-status')) === 'checkpoint') {
        // The question: every phone is on it, open for answers, with nothing of the answer on screen.
        await allOnPresenterBeat();
        await Promise.all(
          phones.map(async (p) => {
            await expect(question(p.page), `${p.name}, chapter ${n}`).toHaveAttribute('data-open', 'true');
            await expect(panel(p.page).getByTestId('checkpoint-result'), `${p.name}, chapter ${n}`).toHaveCount(0);
          }),
        );
        const options = await question(phones[0]!.page).getByTestId('room-option').count();
        const pick = (i: number) => choices[i]! % options;
        await question(phones[0]!.page).getByTestId('room-option').nth(pick(0)).tap();
        await question(phones[1]!.page).getByTestId('room-option').nth(pick(1)).tap();
        for (const p of phones.slice(0, 2)) await expect(question(p.page)).toHaveAttribute('data-state', 'acked');
        if (n === 4) {
          // The server dies with the question open; two phones answer while it is down.
          await crash(async () => {
            for (const i of [2, 3]) await question(phones[i]!.page).getByTestId('room-option').nth(pick(i)).tap();
          });
        } else for (const i of [2, 3]) await question(phones[i]!.page).getByTestId('room-option').nth(pick(i)).tap();
        await question(phones[4]!.page).getByTestId('room-option').nth(pick(4)).tap();
        await Promise.all(phones.map((p) => expect(question(p.page), `${p.name}, chapter ${n}`).toHaveAttribute('data-state', 'acked')));
        const tally = panel(pp).getByTestId('room-tally');
        await expect(tally).toHaveAttribute('data-count', String(phones.length));
        // Next points at the question, Next again reveals it (the presenter's clock held: the chapter
        // plays on from its question at the test's pace, but for chapter 6's crash below).
        await pp.getByTestId('walk-next').click();
        await holdPresenterClock();
        revealedAt[String(n)] = Date.now();
        await pp.getByTestId('walk-next').click();
        await expect(panel(pp)).toHaveAttribute('data-status', /^(running|done)$/);
        const right = await tally.locator('[data-right="true"]').evaluate((li) => [...li.parentElement!.children].indexOf(li));
        await Promise.all(phones.map((p, i) => expect(panel(p.page).getByTestId('checkpoint-result'), `${p.name}, chapter ${n}`).toHaveAttribute('data-correct', pick(i) === right ? 'true' : 'false')));
        if (n === 6) {
          // Just after the reveal: the server dies while the presenter's chapter plays on.
          await releasePresenterClock();
          await crash();
        }
      }
      await presenterPlays();
      await expect(panel(pp)).toHaveAttribute('data-status', 'done');
      await allOnPresenterBeat();
      await Promise.all(phones.map((p) => expect(panel(p.page), p.name).toHaveAttribute('data-status', 'done')));
    }

    // The three questions after, and the room's gain.
    const post = phones.map((_, i) => QUIZ_ANSWERS.map((right, q) => (i === 4 && q === 0 ? (right + 1) % 3 : right)));
    await answerQuiz('post', post);
    const rightShare = (all: number[][]) => all.flat().filter((c, k) => c === QUIZ_ANSWERS[k % 3]).length / all.flat().length;
    const g = hakeGain(rightShare(pre), rightShare(post))!;
    await expect(pp.getByTestId('room-gain')).toContainText(g.toFixed(2));

    // Nothing in words before its reveal, at every beat the presenter's held clock reached (all of
    // chapters 1 to 9 but the few the presenter played with its clock flowing, around two crashes).
    expect(looks).toBeGreaterThanOrEqual(2 * 50);
    expect(spoiled).toEqual([]);
    // The scroll listeners are the page's watch for when it is at rest (state/settled.ts), which writes
    // data-settled and nothing else, and React's own at its root (it hands scrolls to onScroll props:
    // the page has none); no part is left unrendered off screen.
    for (const { person: p } of readers) {
      const driven = await p.page.evaluate(() => ({
        seen: (window as unknown as { __scrollDriven: string[] }).__scrollDriven,
        unrendered: [...document.querySelectorAll('body *')].filter((e) => getComputedStyle(e).contentVisibility !== 'visible').length,
      }));
      expect(driven, `${p.name}: what draws by where it is scrolled`).toEqual({ seen: ['a scroll listener on window', 'a scroll listener on DIV#root', 'a scrollend listener on DIV#root'], unrendered: 0 });
    }

    // What every page recorded. The presenter's in real time, as the phones' (its own clock, held and
    // moved on, is minutes off by now).
    const presenterNow = await pp.evaluate(() => (window as unknown as { __talk: Watch }).__talk.now());
    expect(Math.abs(presenterNow - Date.now()), 'the presenter\u2019s watch reads the real time').toBeLessThan(10_000);
    const presenterWatch = await watchOf(pp);
    const presenterShown = new Set(presenterWatch.shown.map(([c, b]) => `${c}/${b}`));
    /** When the presenter first sent each (chapter, beat) to the room. */
    const sentAt = new Map<string, number>();
    for (const [c, b, t] of presenterWatch.sent) if (!sentAt.has(`${c}/${b}`)) sentAt.set(`${c}/${b}`, t);
    const wasDown = (t: number) => downtimes.some(([a, b]) => t >= a && t <= b);
    for (const p of phones) {
      const w = await watchOf(p.page);
      const seen = new Set(w.shown.map(([c, b]) => `${c}/${b}`));
      for (const [c, b, t] of w.shown) {
        // Never a beat the presenter had not sent the room yet (the walkthrough's "Now" line, the picture, the question's answer).
        const sent = sentAt.get(`${c}/${b}`);
        expect(sent, `${p.name} showed chapter ${c} beat ${b}, which the presenter never sent`).toBeDefined();
        expect(t, `${p.name} showed chapter ${c} beat ${b} before the presenter sent it`).toBeGreaterThanOrEqual(sent!);
        // And one the presenter's own page showed (a beat sent with another chapter's would not be).
        expect(presenterShown.has(`${c}/${b}`), `${p.name} showed chapter ${c} beat ${b}, which the presenter's page never showed`).toBe(true);
      }
      // Within a chapter, a phone never goes back (apart from the look around, whose way back lands ahead).
      const byChapter = new Map<string, number[]>();
      for (const [c, b] of w.shown) byChapter.set(c, [...(byChapter.get(c) ?? []), Number(b)]);
      for (const [c, beats] of byChapter) {
        const forward = beats.every((b, k) => k === 0 || b >= beats[k - 1]!);
        if (!(p === phones[3] && c === '5')) expect(forward, `${p.name}, chapter ${c}: beats ${beats.join(',')}`).toBe(true);
      }
      // Every beat the presenter showed while the room was up reached every phone that had the chapter
      // on screen by then (a phone still computing a chapter's run joins it at the beat the room is at),
      // but the one that looked around, in the chapter it did.
      const inChapterSince = new Map<string, number>();
      for (const [c, , t] of w.shown) if (!inChapterSince.has(c)) inChapterSince.set(c, t);
      for (const [c, b, t] of presenterWatch.shown) {
        if (wasDown(t) || wasDownSoonAfter(t) || (p === phones[3] && c === '5') || !(t >= (inChapterSince.get(c) ?? Infinity))) continue;
        expect(seen.has(`${c}/${b}`), `${p.name} never showed chapter ${c} beat ${b}`).toBe(true);
      }
      // No answer before its reveal: each chapter's question and each quiz.
      for (const [what, t] of Object.entries(w.answerSeen)) {
        expect(revealedAt[what], `${p.name} showed the answer of ${what}, which was never revealed`).toBeDefined();
        expect(t, `${p.name} showed the answer of ${what} before the presenter revealed it`).toBeGreaterThanOrEqual(revealedAt[what]!);
      }
    }
    /** A beat shown just before a crash may not have reached the phones before the server died. */
    function wasDownSoonAfter(t: number): boolean {
      return downtimes.some(([a]) => a >= t && a - t < 3_000);
    }

    // The data file: no beat of one chapter sent with another (each chapter entered at its beat 0, its
    // beats never going back), one answer per phone and question, none counted twice.
    const events = readFileSync(data, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RoomEvent);
    let chapter = 0;
    let beat = -1;
    for (const e of events) {
      if (e.kind !== 'goto') continue;
      if (e.chapter !== chapter) {
        expect(e.beat, `the room was told chapter ${e.chapter} at beat ${e.beat} on entering it`).toBe(0);
        chapter = e.chapter;
      } else expect(e.beat, `chapter ${chapter}: beat ${e.beat} after ${beat}`).toBeGreaterThanOrEqual(beat);
      beat = e.beat;
    }
    expect(chapter).toBe(CHAPTER_COUNT);
    const room = replay(readFileSync(data, 'utf8'));
    for (const q of ['pre:0', 'pre:1', 'pre:2', 'ch:2', 'ch:4', 'ch:6', 'ch:9', 'post:0', 'post:1', 'post:2']) {
      expect(room.answers.get(q)?.size, q).toBe(phones.length);
    }
    for (const p of people) {
      expect(p.foreign, `${p.name}: requests to other origins`).toEqual([]);
      expect(p.cspErrors, `${p.name}: CSP errors`).toEqual([]);
    }
  });
});
