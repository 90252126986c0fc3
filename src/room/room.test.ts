import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES, parseClientMessage } from './protocol';
import { answerCount, applyEvent, distribution, emptyRoom, eventLine, replay, type RoomEvent } from './state';
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
