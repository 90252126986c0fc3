import { describe, expect, it } from 'vitest';
import { averageCorrect, gainCsv, hakeGain } from '../../room/gain.ts';
import { applyEvent, emptyRoom, publicView } from '../../room/state.ts';
import { awayFromPresenter, backoffMs, initialRoomView, keyFromHash, Outbox, PLACE, reduceRoom, revealedCounts, roomTakes, stateFromRevealed, stillFollowing, type Place, type RoomView } from './room.ts';
import { DEFAULT_STATE, type UrlState } from './store.ts';
import { quizPress } from '../walkthrough/quizKeys.ts';

describe('the room as the page sees it', () => {
  it('reduces the server\u2019s messages: the link, the presenter, the room, and this attendee\u2019s acks and refusals', () => {
    let v = initialRoomView('talk', 'attendee');
    expect(v).toMatchObject({ link: 'connecting', following: true, synced: false });
    v = reduceRoom(v, { type: 'welcome', token: 'tok_12345678' });
    expect(v.link).toBe('open');
    v = reduceRoom(v, { type: 'room', chapter: 2, beat: 1, open: 'ch:2', counts: { 'ch:2': 4 }, revealed: {} });
    expect(v).toMatchObject({ synced: true, chapter: 2, beat: 1, open: 'ch:2', counts: { 'ch:2': 4 } });
    v = { ...v, mine: { 'ch:2': { answerId: 'a1a1a1a1', choice: 1, state: 'sending' }, 'pre:0': { answerId: 'b2b2b2b2', choice: 0, state: 'sending' } } };
    v = reduceRoom(v, { type: 'ack', answerId: 'a1a1a1a1' });
    v = reduceRoom(v, { type: 'refused', answerId: 'b2b2b2b2' });
    expect(v.mine['ch:2']!.state).toBe('acked');
    expect(v.mine['pre:0']!.state).toBe('refused');
    // An ack for an answer it does not hold changes nothing (the same object).
    expect(reduceRoom(v, { type: 'ack', answerId: 'zzzzzzzz' })).toBe(v);
    const p = reduceRoom(initialRoomView('talk', 'presenter'), { type: 'presenter' });
    expect(p).toMatchObject({ link: 'open', presenterConfirmed: true, following: false });
  });

  it('reads a second press made before the room echoed the first as the next move: open, then reveal, then on', () => {
    let v: RoomView = reduceRoom(initialRoomView('talk', 'presenter'), { type: 'presenter' });
    const room = { type: 'room', chapter: 1, beat: 0, counts: {} } as const;
    v = reduceRoom(v, { ...room, open: null, revealed: {} });
    expect(quizPress(v, 'pre')).toEqual({ kind: 'open', phase: 'pre' });
    // The open sent (as RoomClient.open records it), its echo not yet in: the next press reveals.
    v = { ...v, moving: { pre: 'open' } };
    expect(quizPress(v, 'pre')).toEqual({ kind: 'reveal', phase: 'pre' });
    // A room message from before the open (a count) keeps the move on its way; the echo ends it.
    v = reduceRoom(v, { ...room, open: null, revealed: {}, counts: { 'pre:0': 1 } });
    expect(v.moving).toEqual({ pre: 'open' });
    v = reduceRoom(v, { ...room, open: 'pre', revealed: {} });
    expect(v.moving).toEqual({});
    expect(quizPress(v, 'pre')).toEqual({ kind: 'reveal', phase: 'pre' });
    // The reveal sent: the quiz asks no more presses (the talk goes on), before and after its echo.
    v = { ...v, moving: { pre: 'reveal' } };
    expect(quizPress(v, 'pre')).toBeNull();
    v = reduceRoom(v, { ...room, open: null, revealed: { 'pre:0': [1, 0, 0], 'pre:1': [0, 1, 0], 'pre:2': [0, 0, 1] } });
    expect(v.moving).toEqual({});
    expect(quizPress(v, 'pre')).toBeNull();
  });

  it('keeps the choice the room took when a later change of mind is refused at the bound, and why', () => {
    let v = initialRoomView('talk', 'attendee');
    v = { ...v, mine: { 'ch:2': { answerId: 'a1a1a1a1', choice: 1, state: 'sending' } } };
    v = reduceRoom(v, { type: 'ack', answerId: 'a1a1a1a1' });
    expect(v.mine['ch:2']).toMatchObject({ state: 'acked', choice: 1, taken: 1 });
    // The eleventh change (the client keeps `taken` on a new send): refused for the limit, the first still counts.
    v = { ...v, mine: { 'ch:2': { answerId: 'c3c3c3c3', choice: 2, state: 'sending', taken: 1 } } };
    v = reduceRoom(v, { type: 'refused', answerId: 'c3c3c3c3', reason: 'limit' });
    expect(v.mine['ch:2']).toMatchObject({ state: 'refused', choice: 2, taken: 1, refusedFor: 'limit' });
  });

  describe('the one rule of following', () => {
    const talk = (chapter: number, beat: number): RoomView => reduceRoom(initialRoomView('talk', 'attendee'), { type: 'room', chapter, beat, open: null, counts: {}, revealed: {} });
    // The page on the presenter's beat, and every way an attendee moves it themselves.
    const here: UrlState = { ...DEFAULT_STATE, chapter: 5, beat: 1, time: 3_600_000, selectedRequest: 7, selectedPage: { node: 'decode-0', page: 3 } };
    const moves: [string, Partial<UrlState>][] = [
      ['a scrub of the timeline', { time: 0 }],
      ['another view', { view: 'transfer' }],
      ['another beat', { beat: 2 }],
      ['another chapter', { chapter: 4 }],
      ['the walkthrough closed', { chapter: null, beat: null }],
      ['another scenario', { scenario: 'demo' }],
      ['a switch flipped', { switches: { ...here.switches, capacityGap: !here.switches.capacityGap } }],
      ['a comparison', { compare: 'buggyRejectPath' }],
      ['another request', { selectedRequest: 8 }],
      ['another page', { selectedPage: { node: 'decode-0', page: 4 } }],
    ];

    it('lets go once the attendee moves the page themselves, whatever they move', () => {
      const view = talk(5, 1);
      expect(stillFollowing(view, here, here, false)).toBe(true);
      for (const [what, move] of moves) expect(stillFollowing(view, here, { ...here, ...move }, false), what).toBe(false);
      // Every part of the place is one of the moves above.
      expect(new Set(moves.flatMap(([, m]) => Object.keys(m)))).toEqual(new Set(PLACE));
    });

    it('never counts the room’s own changes: the presenter’s beat applied moves the same things', () => {
      const view = talk(5, 2);
      for (const [what, move] of moves) expect(stillFollowing(view, here, { ...here, ...move }, true), what).toBe(true);
    });

    it('counts no change that leaves the place as it was, nor what is not the place (the stage’s clock, the language)', () => {
      const view = talk(5, 1);
      const same: Place = { ...here, switches: { ...here.switches }, selectedPage: { ...here.selectedPage! } };
      expect(stillFollowing(view, here, same, false)).toBe(true);
      expect(stillFollowing(view, here, { ...here, handoff: 2.5, lang: 'fr', playing: true } as UrlState, false)).toBe(true);
    });

    it('follows until the presenter has begun, then only through the button once off; a presenter never follows', () => {
      const joined = initialRoomView('talk', 'attendee');
      // Before the first chapter there is nothing to leave: looking around waits for the talk.
      expect(stillFollowing(joined, here, { ...here, time: 0 }, false)).toBe(true);
      expect(stillFollowing(talk(0, 0), here, { ...here, time: 0 }, false)).toBe(true);
      const off = { ...talk(5, 1), following: false };
      expect(stillFollowing(off, here, here, true)).toBe(false);
      expect(awayFromPresenter(off)).toBe(true);
      expect(awayFromPresenter(talk(5, 1))).toBe(false);
      expect(awayFromPresenter({ ...talk(0, 0), following: false })).toBe(false);
      const presenter = reduceRoom(initialRoomView('talk', 'presenter'), { type: 'room', chapter: 5, beat: 1, open: null, counts: {}, revealed: {} });
      expect(stillFollowing(presenter, here, here, true)).toBe(false);
      expect(awayFromPresenter(presenter)).toBe(false);
    });
  });

  it('takes answers to the open question or to every item of the open quiz', () => {
    expect(roomTakes({ open: 'ch:2' }, 'ch:2')).toBe(true);
    expect(roomTakes({ open: 'ch:2' }, 'ch:3')).toBe(false);
    expect(roomTakes({ open: 'pre' }, 'pre:1')).toBe(true);
    expect(roomTakes({ open: 'pre' }, 'post:1')).toBe(false);
    expect(roomTakes({ open: null }, 'ch:2')).toBe(false);
  });

  it('reads a revealed split over the question\u2019s own options', () => {
    expect(revealedCounts({ revealed: { 'ch:2': [1, 3, 1, 0, 0, 0, 0, 0] } }, 'ch:2', 3)).toEqual([1, 3, 1]);
    expect(revealedCounts({ revealed: {} }, 'ch:2', 3)).toBeNull();
  });

  it('sends an answer again once after a drop, then gives it up; a newer answer replaces a waiting one', () => {
    const box = new Outbox();
    box.add({ answerId: 'a', question: 'ch:2', choice: 0 });
    // Not sent yet (the socket was down): it goes on the next connection.
    expect(box.onConnected().send.map((o) => o.answerId)).toEqual(['a']);
    box.sent('a');
    // Dropped before its ack: sent again once.
    let c = box.onConnected();
    expect(c.send.map((o) => o.answerId)).toEqual(['a']);
    expect(c.lost).toEqual([]);
    box.sent('a');
    // Dropped again: given up, never a third time.
    c = box.onConnected();
    expect(c.send).toEqual([]);
    expect(c.lost.map((o) => o.answerId)).toEqual(['a']);
    expect(box.pending).toEqual([]);

    box.add({ answerId: 'b', question: 'ch:3', choice: 1 });
    box.sent('b');
    box.add({ answerId: 'c', question: 'ch:3', choice: 2 });
    expect(box.pending.map((o) => o.answerId)).toEqual(['c']);
    box.settle('c');
    expect(box.onConnected()).toEqual({ send: [], lost: [] });
  });

  it('waits longer each try, up to 5 s, with jitter that only shortens', () => {
    expect(backoffMs(0, 0)).toBe(250);
    expect(backoffMs(1, 0)).toBe(500);
    expect(backoffMs(3, 0)).toBe(2000);
    expect(backoffMs(50, 0)).toBe(5000);
    expect(backoffMs(50, 1)).toBe(4000);
    for (let a = 0; a < 12; a++) expect(backoffMs(a + 1, 0.5)).toBeGreaterThanOrEqual(backoffMs(a, 0.5));
  });

  it('reads the presenter key from the fragment only, and only a well-formed one', () => {
    expect(keyFromHash('#key=key_abcdefgh12')).toBe('key_abcdefgh12');
    expect(keyFromHash('')).toBeNull();
    expect(keyFromHash('#key=short')).toBeNull();
    expect(keyFromHash('#key=has space in it')).toBeNull();
  });

  it('gives the same gain and CSV from the revealed splits as from the answers themselves', () => {
    let state = emptyRoom();
    const choices: Record<string, number[]> = { 'pre:0': [0, 1, 2, 1], 'pre:1': [2, 2, 0, 0], 'pre:2': [1, 0, 0, 0], 'post:0': [1, 1, 1, 2], 'post:1': [2, 2, 2, 0], 'post:2': [1, 1, 0, 1] };
    let n = 0;
    for (const [question, list] of Object.entries(choices)) {
      for (const [i, choice] of list.entries()) state = applyEvent(state, { kind: 'answer', answerId: `id${n++}xxxxxx`, attendee: `att${i}xxxxxx`, question, choice });
    }
    for (const q of ['pre', 'post']) state = applyEvent(state, { kind: 'reveal', question: q });
    const correct = [1, 2, 1];
    const fromRevealed = stateFromRevealed(publicView(state).revealed);
    expect(gainCsv(fromRevealed, correct)).toBe(gainCsv(state, correct));
    const pre = averageCorrect(fromRevealed, 'pre', correct)!;
    const post = averageCorrect(fromRevealed, 'post', correct)!;
    expect(pre).toBeCloseTo(5 / 12);
    expect(post).toBeCloseTo(9 / 12);
    expect(hakeGain(pre, post)).toBeCloseTo((9 / 12 - 5 / 12) / (1 - 5 / 12));
  });
});
