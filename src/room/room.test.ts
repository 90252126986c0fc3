import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES, parseClientMessage } from './protocol';
import fc from 'fast-check';
import { answerCount, answerKey, applyEvent, canOpen, distribution, emptyRoom, eventLine, isOpen, publicView, refusal, replay, type RoomEvent, type SkippedLine } from './state';
import { averageCorrect, gainCsv, hakeGain } from './gain';
import { TokenBucket } from './bucket';

const answer = (attendee: string, question: string, choice: number, answerId = `${attendee}-${question}`): RoomEvent => ({
  kind: 'answer',
  answerId: `ans_${answerId}`.padEnd(8, 'x'),
  attendee,
  question,
  choice,
});

describe('protocol validation', () => {
  it('accepts well-formed messages', () => {
    expect(parseClientMessage(JSON.stringify({ type: 'hello', attendee: 'abcdefgh12' }))).toEqual({ type: 'hello', attendee: 'abcdefgh12' });
    expect(parseClientMessage(JSON.stringify({ type: 'answer', token: 'tok_12345678', answerId: 'a_12345678', question: 'ch:3', choice: 1 }))?.type).toBe('answer');
    expect(parseClientMessage(JSON.stringify({ type: 'goto', key: 'k_123456789', chapter: 2, beat: 5 }))?.type).toBe('goto');
  });

  it('drops malformed, unknown, out-of-range and oversized messages', () => {
    expect(parseClientMessage('not json')).toBeUndefined();
    expect(parseClientMessage(JSON.stringify({ type: 'kick', who: 'all' }))).toBeUndefined();
    expect(parseClientMessage(JSON.stringify({ type: 'hello', attendee: 'a b' }))).toBeUndefined();
    expect(parseClientMessage(JSON.stringify({ type: 'answer', token: 'tok_12345678', answerId: 'a_12345678', question: 'ch:3', choice: 99 }))).toBeUndefined();
    expect(parseClientMessage(JSON.stringify({ type: 'answer', token: 'tok_12345678', answerId: 'a_12345678', question: 'x:1', choice: 0 }))).toBeUndefined();
    expect(parseClientMessage(JSON.stringify({ type: 'goto', chapter: 2, beat: 5 }))).toBeUndefined();
    expect(parseClientMessage(JSON.stringify({ type: 'hello', attendee: 'abcdefgh12', pad: 'x'.repeat(MAX_MESSAGE_BYTES) }))).toBeUndefined();
  });
});

describe('room state', () => {
  it('counts one answer per attendee, the last one wins, a resend is not counted twice', () => {
    let s = emptyRoom();
    s = applyEvent(s, { kind: 'goto', chapter: 1, beat: 4 });
    s = applyEvent(s, { kind: 'open', question: 'ch:1' });
    s = applyEvent(s, answer('att_aaaaaaaa', 'ch:1', 0, '1'));
    const again = applyEvent(s, answer('att_aaaaaaaa', 'ch:1', 0, '1'));
    expect(again).toBe(s);
    s = applyEvent(s, answer('att_bbbbbbbb', 'ch:1', 2, '2'));
    s = applyEvent(s, answer('att_aaaaaaaa', 'ch:1', 2, '3'));
    expect(answerCount(s, 'ch:1')).toBe(2);
    expect(distribution(s, 'ch:1', 3)).toEqual([0, 0, 2]);
    s = applyEvent(s, { kind: 'reveal', question: 'ch:1' });
    expect(s.open).toBeNull();
    expect(s.revealed.has('ch:1')).toBe(true);
    expect([s.chapter, s.beat]).toEqual([1, 4]);
  });

  it('replays the data file to the same state, skipping a torn last line', () => {
    const events: RoomEvent[] = [
      { kind: 'goto', chapter: 2, beat: 3 },
      { kind: 'open', question: 'ch:2' },
      answer('att_aaaaaaaa', 'ch:2', 1, '1'),
      answer('att_aaaaaaaa', 'ch:2', 1, '1'),
      answer('att_bbbbbbbb', 'ch:2', 0, '2'),
    ];
    const text = events.map(eventLine).join('') + '{"kind":"answer","answ';
    const s = replay(text);
    expect([s.chapter, s.beat, s.open]).toEqual([2, 3, 'ch:2']);
    expect(distribution(s, 'ch:2', 2)).toEqual([1, 1]);
  });

  it('counts the answer lines of each attendee and question (what bounds the data file), the same after a replay; a resend adds none', () => {
    const events: RoomEvent[] = [
      { kind: 'open', question: 'pre' },
      answer('h_aaaaaaaa', 'pre:0', 0, '1'),
      answer('h_aaaaaaaa', 'pre:0', 1, '2'),
      answer('h_aaaaaaaa', 'pre:0', 1, '2'),
      answer('h_aaaaaaaa', 'pre:1', 2, '3'),
      answer('h_bbbbbbbb', 'pre:0', 2, '4'),
    ];
    const s = emptyRoom();
    for (const e of events) applyEvent(s, e);
    const counts = { a0: s.answerLines.get(answerKey('pre:0', 'h_aaaaaaaa')), a1: s.answerLines.get(answerKey('pre:1', 'h_aaaaaaaa')), b0: s.answerLines.get(answerKey('pre:0', 'h_bbbbbbbb')) };
    expect(counts).toEqual({ a0: 2, a1: 1, b0: 1 });
    expect(replay(events.map(eventLine).join('')).answerLines).toEqual(s.answerLines);
    // The last answer counts: Alice's second to pre:0 replaced her first.
    expect(distribution(s, 'pre:0', 3)).toEqual([0, 1, 1]);
  });
});

describe('question phases: waiting, open, revealed (final)', () => {
  const questions = new Map([
    ['ch:2', 3],
    ['pre:0', 3],
    ['pre:1', 3],
    ['pre:2', 4],
  ]);

  it('takes answers only while open and before the reveal, only for the question\u2019s options', () => {
    const s = emptyRoom(questions);
    expect(refusal(s, 'ch:2', 0)).toBe('closed');
    applyEvent(s, { kind: 'open', question: 'ch:2' });
    expect(refusal(s, 'ch:2', 2)).toBeNull();
    expect(refusal(s, 'ch:2', 3)).toBe('choice');
    expect(refusal(s, 'pre:0', 0)).toBe('closed');
    // An answer with a choice the question does not have changes nothing, even from a hand-edited file.
    applyEvent(s, answer('att_aaaaaaaa', 'ch:2', 3, 'x'));
    expect(answerCount(s, 'ch:2')).toBe(0);
    applyEvent(s, answer('att_aaaaaaaa', 'ch:2', 2, 'y'));
    applyEvent(s, { kind: 'reveal', question: 'ch:2' });
    expect(s.open).toBeNull();
    expect(refusal(s, 'ch:2', 1)).toBe('closed');
    // Revealed is final: opening it again opens nothing.
    expect(canOpen(s, 'ch:2')).toBe(false);
    applyEvent(s, { kind: 'open', question: 'ch:2' });
    expect(s.open).toBeNull();
    expect(publicView(s).revealed['ch:2']).toEqual([0, 0, 1]);
  });

  it('opens and reveals a quiz item by item; a revealed item takes no answer while its quiz is open', () => {
    const s = emptyRoom(questions);
    applyEvent(s, { kind: 'open', question: 'pre' });
    expect(['pre:0', 'pre:1', 'pre:2'].map((q) => isOpen(s, q))).toEqual([true, true, true]);
    applyEvent(s, { kind: 'reveal', question: 'pre:1' });
    expect(s.open).toBe('pre');
    expect(['pre:0', 'pre:1', 'pre:2'].map((q) => isOpen(s, q))).toEqual([true, false, true]);
    applyEvent(s, { kind: 'reveal', question: 'pre' });
    expect(s.open).toBeNull();
    // Every revealed item is in the room's view, answered or not, with its own number of options.
    expect(publicView(s).revealed).toEqual({ 'pre:0': [0, 0, 0], 'pre:1': [0, 0, 0], 'pre:2': [0, 0, 0, 0] });
    applyEvent(s, { kind: 'open', question: 'pre' });
    expect(s.open).toBeNull();
    // A question the room does not ask is never opened.
    applyEvent(s, { kind: 'open', question: 'ch:3' });
    expect(s.open).toBeNull();
  });

  it('holds its invariants under any sequence of events', () => {
    const event = fc.oneof(
      fc.record({ kind: fc.constant('goto' as const), chapter: fc.nat(10), beat: fc.nat(12) }),
      fc.record({ kind: fc.constant('open' as const), question: fc.constantFrom('ch:2', 'ch:3', 'pre', 'pre:1', null) }),
      fc.record({ kind: fc.constant('reveal' as const), question: fc.constantFrom('ch:2', 'pre', 'pre:0', 'post') }),
      fc.record({ kind: fc.constant('answer' as const), answerId: fc.constantFrom('a1xxxxxx', 'a2xxxxxx', 'a3xxxxxx', 'a4xxxxxx'), attendee: fc.constantFrom('att_1xxx', 'att_2xxx'), question: fc.constantFrom('ch:2', 'pre:0', 'pre:2'), choice: fc.nat(7) }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const s = emptyRoom(questions);
        const revealedSoFar = new Set<string>();
        for (const e of events) {
          applyEvent(s, e);
          // Revealed only grows; the open question always has something left to answer.
          for (const q of revealedSoFar) expect(s.revealed.has(q)).toBe(true);
          for (const q of s.revealed) revealedSoFar.add(q);
          if (s.open !== null) expect(canOpen(s, s.open)).toBe(true);
        }
        for (const [q, byAttendee] of s.answers) for (const a of byAttendee.values()) expect(a.choice).toBeLessThan(questions.get(q)!);
        // The data file of these events rebuilds the same room.
        const again = replay(events.map(eventLine).join(''), { questions });
        expect(publicView(again)).toEqual(publicView(s));
        expect([again.chapter, again.beat, again.open]).toEqual([s.chapter, s.beat, s.open]);
      }),
      { seed: 34, numRuns: 300 },
    );
  });

  it('updates in place: an answer copies none of the answers before it', () => {
    const s = emptyRoom(questions);
    applyEvent(s, { kind: 'open', question: 'ch:2' });
    applyEvent(s, answer('att_aaaaaaaa', 'ch:2', 0, 'first'));
    const { answers, seen } = s;
    const byAttendee = s.answers.get('ch:2');
    for (let i = 0; i < 50; i++) expect(applyEvent(s, answer(`att_${i}xxxxxxx`, 'ch:2', i % 3, `n${i}`))).toBe(s);
    expect(s.answers).toBe(answers);
    expect(s.seen).toBe(seen);
    expect(s.answers.get('ch:2')).toBe(byAttendee);
    expect(answerCount(s, 'ch:2')).toBe(51);
  });

  it('replay says which lines of a damaged file it left out, and skips a torn last line silently', () => {
    const skipped: SkippedLine[] = [];
    const text = [eventLine({ kind: 'open', question: 'ch:2' }), 'garbage\n', '{"kind":"answer","choice":"x"}\n', eventLine(answer('att_aaaaaaaa', 'ch:2', 1)), '{"kind":"ans'].join('');
    const s = replay(text, { questions, onSkip: (l) => skipped.push(l) });
    expect(skipped.map((l) => l.line)).toEqual([2, 3]);
    expect(skipped[0]!.why).toBe('not JSON');
    expect(answerCount(s, 'ch:2')).toBe(1);
  });
});

describe('learning gain', () => {
  it('computes the class-average normalised gain and its CSV', () => {
    const correct = [0, 1, 2];
    let s = emptyRoom();
    // pre: 2 attendees x 3 questions, 2 of 6 right; post: 5 of 6 right.
    const pre = [[0, 0, 0], [1, 1, 1]];
    const post = [[0, 1, 2], [0, 1, 0]];
    pre.forEach((row, a) => row.forEach((c, i) => (s = applyEvent(s, answer(`att_${a}xxxxxxx`, `pre:${i}`, c)))));
    post.forEach((row, a) => row.forEach((c, i) => (s = applyEvent(s, answer(`att_${a}xxxxxxx`, `post:${i}`, c)))));
    const p = averageCorrect(s, 'pre', correct);
    const q = averageCorrect(s, 'post', correct);
    expect(p).toBeCloseTo(2 / 6);
    expect(q).toBeCloseTo(5 / 6);
    expect(hakeGain(p, q)).toBeCloseTo((5 / 6 - 2 / 6) / (1 - 2 / 6));
    expect(hakeGain(1, 1)).toBeUndefined();
    const csv = gainCsv(s, correct).trim().split('\n');
    expect(csv[0]).toBe('phase,question,answers,correct,fraction_correct');
    expect(csv).toHaveLength(8);
    expect(csv[7]).toBe('gain,,,,0.7500');
  });
});

describe('token bucket', () => {
  it('allows a burst then refills at its rate', () => {
    const b = new TokenBucket(3, 2, 0);
    expect([b.take(0), b.take(0), b.take(0), b.take(0)]).toEqual([true, true, true, false]);
    expect(b.take(499)).toBe(false);
    expect(b.take(1000)).toBe(true);
  });
});
