import { describe, expect, it } from 'vitest';
import { translate } from '../i18n/messages.ts';
import { whyNextWaits, whyOptionRefused } from './refusal.ts';

describe('why a press waits', () => {
  it('Next acts at once outside a playing chapter, and is kept, saying why, while one prepares or plays on to what it must not pass', () => {
    const base = { ready: true, questionAhead: false, quizAfter: false };
    for (const status of ['held', 'checkpoint', 'done', 'idle'] as const) expect(whyNextWaits({ ...base, status, ready: false, questionAhead: true })).toBeNull();
    expect(whyNextWaits({ ...base, status: 'running' })).toBeNull();
    expect(whyNextWaits({ ...base, status: 'running', ready: false })?.key).toBe('walkWaitPreparing');
    expect(whyNextWaits({ ...base, status: 'running', questionAhead: true })?.key).toBe('walkWaitQuestion');
    expect(whyNextWaits({ ...base, status: 'running', quizAfter: true })?.key).toBe('walkWaitEnd');
    // Preparing is said first: the question is not even laid out yet.
    expect(whyNextWaits({ ...base, status: 'running', ready: false, questionAhead: true })?.key).toBe('walkWaitPreparing');
  });

  it('a number key answers only the question on screen, and says which keys do when it cannot', () => {
    expect(whyOptionRefused(2, { status: 'checkpoint', options: 3, answered: false })).toBeNull();
    expect(whyOptionRefused(1, { status: 'done', options: 0, answered: false })?.key).toBe('walkKeysNoQuestion');
    expect(whyOptionRefused(1, { status: 'checkpoint', options: 3, answered: true })?.key).toBe('walkKeysAnswered');
    expect(whyOptionRefused(1, { status: 'running', options: 3, answered: false })).toEqual({ key: 'walkKeysNotYet', vars: { n: '3' } });
    expect(whyOptionRefused(4, { status: 'checkpoint', options: 3, answered: false })).toEqual({ key: 'walkKeysRange', vars: { n: '3' } });
    expect(translate('en', 'walkKeysRange', { n: '3' })).toBe('This question has 3 options: press 1 to 3.');
    expect(translate('fr', 'walkKeysNotYet', { n: '3' })).toMatch(/^La question n’est pas encore posée\s: les touches 1\sà\s3\s/);
  });
});
