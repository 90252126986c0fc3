import { beforeAll, describe, expect, it } from 'vitest';
import { loadLaterText } from '../../i18n/catalogue.ts';
import { checkedConfig, explore } from '../../../engine/protocol/index.ts';
import { picture } from './picture.ts';

describe('the counterexample picture', () => {
  // The verify panel is a later view: the page loads this text with it (withLaterText).
  beforeAll(() => loadLaterText('en'));
  const c = checkedConfig('incident')!.config;
  const ce = explore(c).verdicts.confidentiality.counterexample!;

  it('starts with every page free and zero-filled', () => {
    const pic = picture(c, ce.initial);
    expect([...pic.prefill, ...pic.decode].every((p) => p.owner === 'free' && p.content === 'zeros' && !p.stale && p.read === null)).toBe(true);
    expect(pic.messages).toEqual([]);
  });

  it('shows the done message in flight, carrying no page count', () => {
    const i = ce.steps.findIndex((s) => s.kind === 'prefill-done' && s.request === 1);
    const pic = picture(c, ce.steps[i]!.state);
    expect(pic.messages).toEqual(['done(room B, Success) → decode — no page count']);
  });

  it('on the last step says, in words, which pages decode read and whose KV they held', () => {
    const last = ce.steps[ce.steps.length - 1]!;
    const pic = picture(c, last.state, last.read);
    expect(pic.reads).toEqual([
      { page: 'd0', what: 'B (T2) + stale A (T1): its own KV, then another request\u2019s stale slots', verdict: 'own+foreign' },
      { page: 'd1', what: 'A (T1): another request\u2019s KV', verdict: 'foreign' },
      { page: 'd2', what: 'zeros: zeros (never written for it)', verdict: 'zeros' },
    ]);
    expect(pic.decode.map((p) => [p.id, p.read])).toEqual([['d0', 'own+foreign'], ['d1', 'foreign'], ['d2', 'zeros']]);
    expect(pic.requests.find((r) => r.name === 'B')).toMatchObject({ status: '200', prefill: 'marked aborted, 1 placeholder token; done sent' });
  });

  it('marks a reserved page that still holds an earlier tenant\'s KV as stale', () => {
    const i = ce.steps.findIndex((s) => s.kind === 'decode-reserve' && s.request === 1);
    const pic = picture(c, ce.steps[i]!.state);
    const d1 = pic.decode.find((p) => p.id === 'd1')!;
    expect(d1).toMatchObject({ owner: 'B (tenant 2)', content: 'A (T1)', stale: true, contentTenant: 1 });
  });
});
