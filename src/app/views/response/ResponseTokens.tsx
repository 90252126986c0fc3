/**
 * A response's tokens, each tinted by the tenant whose KV it drew on most, and linked to that page:
 * hovering or focusing a token lights its source page on the grids (the store's `linkedPage`), and
 * names the earlier request that wrote it; Enter or the button selects that request, at an instant
 * it was in flight. One tab stop for the whole response; the arrow keys move between tokens.
 */
import { useRef, useState } from 'react';
import type { ResponseRecord } from '../../../engine/index.ts';
import { formatNumber } from '../../i18n/format.ts';
import { Tx, useT } from '../../i18n/i18n.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { tenantCss, tenantInk } from '../../ui/palette.ts';
import { highlightable } from '../shared/highlight.ts';
import { ModelBadge } from '../shared/Evidence.tsx';
import { attentionLine } from '../shared/attentionText.ts';
import type { TokenSource } from '../../moment/moment.ts';
import { tokenSourceAt, tokenSourceText } from './tokenSourceText.ts';

/**
 * `sources`: each token's source as the moment names it (`tokenSourcesOf`: its page's block in the
 * request's block table, the slot's writer when decode read it), so its hover says what the
 * microscope and the grids say; until they are there, the engine's provenance without the block.
 */
export function ResponseTokens({ run, response: r, words, testId, className = '', sources }: { run: RunSummary; response: ResponseRecord; words: string[]; testId: string; className?: string; sources: readonly TokenSource[] | null }) {
  const store = useAppStore();
  const t = useT();
  const lang = useApp((s) => s.lang);
  const set = useApp((s) => s.set);
  const [active, setActive] = useState<number | null>(null);
  // The last token pointed at stays named below, so the pointer can travel to its button.
  const [named, setNamed] = useState<number | null>(null);
  const [roving, setRoving] = useState(0);
  const box = useRef<HTMLParagraphElement>(null);
  const fmt = (n: number) => formatNumber(n, lang);

  const link = (i: number | null) => {
    setActive(i);
    if (i !== null) setNamed(i);
    const p = i === null ? null : r.provenance[i];
    store.setState({ linkedPage: p && p.writerTenant !== null ? { node: p.node, page: p.page, slot: p.slot } : null });
  };
  /** The writer of token i, selected at the middle of its time in flight (when it held the page). */
  const follow = (i: number) => {
    const p = r.provenance[i];
    if (!p || p.writerRequest < 0 || p.writerRequest >= run.requests.count) return;
    const w = p.writerRequest;
    const at = (run.requests.arrivedAt[w]! + run.requests.finishedAt[w]!) / 2;
    store.setState({ linkedPage: null });
    set({ selectedRequest: w, selectedPage: { node: p.node, page: p.page }, time: at, playing: false });
  };
  const focusToken = (i: number) => {
    const el = box.current?.querySelectorAll<HTMLElement>('[data-token]')[i];
    el?.focus();
  };
  const onKey = (e: React.KeyboardEvent, i: number) => {
    const n = r.tokens.length;
    const to = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : null;
    if (to !== null) {
      e.preventDefault();
      e.stopPropagation();
      const k = Math.max(0, Math.min(n - 1, to));
      setRoving(k);
      focusToken(k);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      follow(i);
    }
  };

  const shown = active ?? (named !== null && named < r.tokens.length ? named : null);
  const src = shown !== null ? tokenSourceAt(sources, r.provenance, shown) : undefined;
  const said = src ? tokenSourceText(run, src, t, lang) : null;
  const attention = shown !== null ? r.provenance[shown]?.attention : undefined;
  const writer = src && src.writerRequest >= 0 ? src.writerRequest : -1;
  return (
    <div className={`response-tokens ${className}`}>
      {/* Which model said it: the replay's compressed model, or the trained transformer. */}
      <p className="hint response-model" data-testid={`${testId}-model`} data-decoder={run.decoder}>
        {t(run.decoder === 'transformer' ? 'modelTransformer' : 'modelCompressed')}
      </p>
      <p
        ref={box}
        className="tokens"
        data-testid={testId}
        lang="en"
        role="group"
        aria-label={t('tokensLabel')}
        {...highlightable('response-tokens')}
        onMouseLeave={() => link(null)}
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) link(null);
        }}
      >
        {r.tokens.map((tok, i) => {
          const p = r.provenance[i]!;
          const word = words[tok] ?? String(tok);
          const foreign = p.writerTenant !== null && p.writerTenant !== r.tenant;
          const tenantIndex = p.writerTenant === null ? -1 : run.tenants.indexOf(p.writerTenant);
          const canary = word.startsWith('canary-');
          // Every tenant's documents carry its own marker: only another tenant's is a finding, ringed.
          const foreignCanary = canary && word !== `canary-${r.tenant}`;
          // Under the transformer a token's source is its attention, spread over pages: say the shares.
          const title = p.attention
            ? attentionLine(t, lang, p.attention, r.tenant)
            : p.writerTenant === null ? t('emptyKv') : t('tokenSource', { who: foreign ? `${t('foreignKv')} ${p.writerTenant}` : t('ownKv'), node: p.node, page: fmt(p.page) });
          return (
            <span
              key={i}
              className={`tok ${foreign ? 'foreign' : p.writerTenant === null ? 'empty' : 'own'}${foreignCanary ? ' canary' : ''}${active === i ? ' linked' : ''}`}
              style={foreign ? { background: tenantCss(tenantIndex), color: tenantInk(tenantIndex) } : undefined}
              title={title}
              data-token={i}
              data-writer={p.writerTenant ?? ''}
              data-node={p.node}
              data-page={p.page}
              data-writer-request={p.writerRequest}
              tabIndex={i === roving ? 0 : -1}
              role="button"
              aria-label={`${word}: ${title}`}
              onMouseEnter={() => link(i)}
              onFocus={() => {
                setRoving(i);
                link(i);
              }}
              onClick={() => follow(i)}
              onKeyDown={(e) => onKey(e, i)}
            >
              {canary ? '⚑ ' : ''}
              {word}
              {foreign ? <sub aria-hidden="true">{p.writerTenant}</sub> : null}
            </span>
          );
        })}
      </p>
      <p className="token-source hint" aria-live="polite" data-testid={`${testId}-source`}>
        {said ? (
          <>
            {said.from}{' '}
            {said.by !== null ? (
              <>
                {said.by} <ModelBadge />{' '}
                <button type="button" className="linklike" data-testid={`${testId}-follow`} onMouseDown={(e) => e.preventDefault()} onClick={() => follow(shown!)}>
                  {t('tokenSelectWriter', { request: run.requests.ids[writer] ?? '?' })}
                </button>
              </>
            ) : (
              t('emptyKv')
            )}
            {attention ? (
              <span className="token-attention" data-testid={`${testId}-attention`}>
                {' '}
                {/* The word is the model's vocabulary, in English whatever the page's language. */}
                <Tx k="hpAttention" vars={{ word: <span lang="en">{words[r.tokens[shown!]!] ?? ''}</span>, shares: attentionLine(t, lang, attention, r.tenant) }} />
              </span>
            ) : null}
          </>
        ) : (
          t('tokenHint')
        )}
      </p>
    </div>
  );
}
