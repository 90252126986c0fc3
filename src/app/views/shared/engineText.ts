/**
 * The engine's events in the page's language. The engine's own `reason` strings are English (the
 * CLI prints them); the page never shows them: it rebuilds each sentence from the events' structured
 * fields (event type, stage, check, token and page counts) and the deployment's limits, through the
 * catalogue.
 */
import type { EngineEvent } from '../../../engine/events.ts';
import type { Translate } from '../../i18n/i18n.ts';
import { formatNumber, type Lang } from '../../i18n/format.ts';
import type { PhaseInfo } from '../../run/summary.ts';
import { handoffCounts, type BlockTable } from '../../moment/moment.ts';

/** What a sentence needs beyond its event: the deployment that served the request, and the request's other events. */
export interface EventContext {
  lang: Lang;
  /** The serving deployment (its prefill limit and node sizes), when known. */
  phase: PhaseInfo | undefined;
  /** Every event of the same request, in order (a check's counts come from earlier events). */
  events: readonly EngineEvent[];
  /**
   * The block table as decode read it and the run's roster (the moment's): the read's sentence then
   * names every owner of its pages with their counts, and the pages never written.
   */
  read?: { table: BlockTable; roster: readonly string[] } | null;
}

/**
 * A pool's page count against its capacity in tokens, in the model's arithmetic: page #0 is padding,
 * never handed out (SGLang's allocators start their free list at 1, engine/kvPool.ts), so a pool of
 * P pages of S tokens holds (P − 1) × S usable tokens, not P × S: 10,646 × 64 = 681,344 drawn, 10,645 × 64
 * = 681,280 usable. A model value (the report gives the capacity, F14, never a page count).
 */
export function poolPagesArithmetic(pages: number, size: number, t: Translate, lang: Lang): string {
  const fmt = (n: number) => formatNumber(n, lang);
  return t('poolPadding', { pages: fmt(pages), size: fmt(size), all: fmt(pages * size), usable: fmt(pages - 1), tokens: fmt((pages - 1) * size) });
}

/** Who holds a block table's pages not written for its request: every tenant with its count, then the pages never written. */
export function blockOwnersText(table: BlockTable, roster: readonly string[], t: Translate, lang: Lang): string {
  const fmt = (n: number) => formatNumber(n, lang);
  const parts = table.staleByTenant.map(({ tenant, pages }) => t('stripOf', { count: fmt(pages), tenant: roster[tenant] ?? '?' }));
  if (table.empty > 0) parts.push(t('stripEmpty', { count: fmt(table.empty) }));
  return parts.join(', ');
}

const node = (kind: 'prefill' | 'decode', i: number) => `${kind}-${i}`;

function decodePoolTokens(phase: PhaseInfo | undefined, decode: number): number | null {
  const n = phase?.nodes.find((x) => x.kind === 'decode' && x.index === decode);
  return n && phase ? n.pageCount * phase.pageSize : null;
}

/** One sentence per engine event of a request's handoff, in the page's language. */
export function describeEvent(e: EngineEvent, t: Translate, ctx: EventContext): string {
  const fmt = (n: number) => formatNumber(n, ctx.lang);
  const cleared = (c: boolean) => t(c ? 'ev_cleared' : 'ev_notCleared');
  const prompt = () => {
    const a = ctx.events.find((x) => x.type === 'arrive');
    return a && a.type === 'arrive' ? fmt(a.tokens) : '?';
  };
  switch (e.type) {
    case 'arrive':
      return t('ev_arrive', { tenant: e.tenant, tokens: fmt(e.tokens) });
    case 'reject': {
      if (e.stage === 'tokenizer') return t('ev_rejectTokenizer', { tokens: prompt() });
      if (e.stage === 'admission') return t('ev_rejectAdmission', { tokens: prompt(), limit: ctx.phase ? fmt(ctx.phase.prefillLimit) : '?' });
      const route = ctx.events.find((x) => x.type === 'route');
      const decode = route && route.type === 'route' ? route.decode : 0;
      const pool = decodePoolTokens(ctx.phase, decode);
      return t('ev_rejectDecode', { tokens: prompt(), node: node('decode', decode), limit: pool === null ? '?' : fmt(pool) });
    }
    case 'abort-marked':
      return t('ev_abort');
    case 'route':
      return t('ev_route', { prefill: node('prefill', e.prefill), decode: node('decode', e.decode), room: String(e.room) });
    case 'decode-wait':
      return t('ev_decodeWait', { need: fmt(e.needPages), free: fmt(e.freePages) });
    case 'decode-reserve':
      return t('ev_decodeReserve', { node: node('decode', e.node), pages: fmt(e.pageCount), tokens: prompt() });
    case 'prefill-wait':
      return t('ev_prefillWait', { pages: fmt(e.needPages) });
    case 'prefill-alloc': {
      const pages = e.pages.reduce((a, r) => a + r[1], 0);
      return t('ev_prefillAlloc', { node: node('prefill', e.node), tokens: fmt(e.computeTokens), pages: fmt(pages) });
    }
    case 'prefill-compute':
      return t('ev_prefillCompute', { tokens: fmt(e.tokens) });
    case 'kv-transfer':
      return t(e.late ? 'ev_transferLate' : 'ev_transfer', { pages: fmt(e.pagesWritten) });
    case 'prefill-chunk':
      return t('ev_prefillChunk', { chunk: fmt(e.chunk), chunks: fmt(e.chunks), from: fmt(e.from), to: fmt(e.to) });
    case 'prefill-retire':
      return t('ev_prefillRetire');
    case 'client-cancel':
      return t(e.stage === 'queued' ? 'ev_cancelQueued' : e.stage === 'decoding' ? 'ev_cancelDecoding' : e.fenced ? 'ev_cancelFenced' : 'ev_cancelInFlight');
    case 'prefill-sees-abort':
      return t(e.what === 'dropped' ? 'ev_seesAbortDropped' : e.what === 'stopped' ? 'ev_seesAbortStopped' : 'ev_seesAbortFinished');
    case 'prefill-free':
      return t('ev_prefillFree', { cleared: cleared(e.cleared) });
    case 'transfer-done':
      return t('ev_done', { room: String(e.room), status: e.status });
    case 'decode-check-failed': {
      const { reserved, written, unwritten } = handoffCounts(ctx.events);
      if (e.check === 'transferred-length') return t('ev_checkLength', { reserved: fmt(reserved.length), written: fmt(written) });
      return t('ev_checkIntegrity', { page: String(unwritten[0] ?? '?'), node: node('decode', e.node), stale: fmt(unwritten.length) });
    }
    case 'decode-read':
      return t('ev_decodeRead', {
        pages: fmt(e.pageCount),
        tokens: fmt(e.seqLen),
        stale: fmt(e.stalePages + e.zeroPages),
        foreign: ctx.read
          ? ctx.read.table.stale + ctx.read.table.empty > 0
            ? t('ev_decodeReadOwners', { owners: blockOwnersText(ctx.read.table, ctx.read.roster, t, ctx.lang) })
            : ''
          : e.foreignTenants.length
            ? t('ev_decodeReadForeign', { tenants: e.foreignTenants.join(', '), stale: fmt(e.stalePages + e.zeroPages) })
            : '',
      });
    case 'response':
      return t('ev_response', { status: String(e.status), leak: e.leaked ? t('ev_responseLeak') : '' });
    case 'decode-grow':
      return t('ev_decodeGrow', { page: String(e.page), tokens: fmt(e.tokens) });
    case 'decode-free': {
      const freed = e.pages.reduce((a, r) => a + r[1], 0);
      // More than decode reserved for the prompt: the pages it took for the answer as it grew, said, so that
      // "frees 12,501" beside "reserved 12,500" is not a count gone wrong.
      const grown = ctx.events.filter((x) => x.type === 'decode-grow').length;
      if (grown > 0 && grown < freed) return t('ev_decodeFreeGrown', { pages: fmt(freed), reserved: fmt(freed - grown), grown: fmt(grown), cleared: cleared(e.cleared) });
      return t('ev_decodeFree', { pages: fmt(freed), cleared: cleared(e.cleared) });
    }
  }
}

/** Why a request got no text (its rejection or failed check), in the page's language; null when it was answered. */
export function describeRefusal(t: Translate, ctx: EventContext): string | null {
  const e = ctx.events.find((x) => x.type === 'reject' || x.type === 'decode-check-failed');
  return e ? describeEvent(e, t, ctx) : null;
}

/**
 * The deployment capacity check's refusal in the page's language. The engine gives it as an English
 * sentence with the two sizes (config.ts, DeploymentRefused); the sizes are read back from it.
 * Returns null when the sentence is not that one (then the caller shows it as it came).
 */
export function describeDeploymentRefused(refused: string, t: Translate, lang: Lang): string | null {
  const m = /advertised context of ([\d,]+) tokens exceeds the prefill KV cache of ([\d,]+) tokens/.exec(refused);
  if (!m) return null;
  const n = (s: string) => formatNumber(Number(s.replaceAll(',', '')), lang);
  return t('refusedDetail', { advertised: n(m[1]!), capacity: n(m[2]!) });
}
