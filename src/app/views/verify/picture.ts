/**
 * What the counterexample player draws for one state of the handoff model: pure data, so it can be
 * tested without a DOM. Every distinction the picture makes is spelled out in text as well (owner,
 * writer, "stale", "read now"), so colour only repeats it.
 */
import { NONE, type ProtocolConfig, type ProtocolState, type ReadObservation } from '../../../engine/protocol/index.ts';
import { translate, type Translate } from '../../i18n/i18n.ts';

/** English, for tests and callers without a page language. */
const english: Translate = (key, vars) => translate('en', key, vars);

export type ReadVerdict = 'own' | 'foreign' | 'zeros' | 'own+foreign' | 'own+zeros';

export interface PageView {
  id: string;
  /** "free" or the holder, e.g. "B (tenant 2)". */
  owner: string;
  ownerTenant: number | null;
  /** Who wrote the page: "B (T2)", "B (T2) + stale A (T1)", "zeros". */
  content: string;
  /** Tenant whose KV fills most of the page (the tail), for the pattern; null for zeros. */
  contentTenant: number | null;
  /** The page holds KV of a request other than its current holder (or of anyone, when free). */
  stale: boolean;
  /** Set when decode read this page in the step shown. */
  read: ReadVerdict | null;
}

export interface RequestView {
  name: string;
  tenant: number;
  pages: number;
  decode: string;
  prefill: string;
  status: string;
}

export interface Picture {
  prefill: PageView[];
  decode: PageView[];
  /** Control messages in flight: done, abort notices, confirmations. */
  messages: string[];
  requests: RequestView[];
  /** What decode read in this step, page by page, in words. */
  reads: { page: string; what: string; verdict: ReadVerdict }[];
}

function name(c: ProtocolConfig, r: number): string {
  return c.requests[r]?.name ?? `#${r}`;
}

function tenantOf(c: ProtocolConfig, r: number): number | null {
  return r === NONE ? null : (c.requests[r]?.tenant ?? null);
}

function writer(c: ProtocolConfig, r: number, t: Translate): string {
  return t('pv.writer', { name: name(c, r), tenant: String(tenantOf(c, r)) });
}

function contentText(c: ProtocolConfig, head: number, tail: number, t: Translate): string {
  if (head === NONE && tail === NONE) return t('pv.zeros');
  if (head === tail) return writer(c, head, t);
  const h = head === NONE ? t('pv.zeros') : writer(c, head, t);
  const rest = tail === NONE ? t('pv.zeros') : t('pv.stale', { writer: writer(c, tail, t) });
  return `${h} + ${rest}`;
}

function verdictOf(request: number, head: number, tail: number): ReadVerdict {
  const part = (t: number) => (t === request ? 'own' : t === NONE ? 'zeros' : 'foreign');
  const a = part(head);
  const b = part(tail);
  if (a === b) return a;
  if (a === 'foreign' || b === 'foreign') return a === 'zeros' || b === 'zeros' ? 'foreign' : 'own+foreign';
  return 'own+zeros';
}

export function readWords(v: ReadVerdict, t: Translate = english): string {
  return t(`read.${v}`);
}

function pageViews(c: ProtocolConfig, cells: ProtocolState['decode'], prefix: 'p' | 'd', t: Translate, read?: ReadObservation): PageView[] {
  return cells.map((cell, i) => {
    const r = prefix === 'd' ? read?.pages.find((p) => p.page === i) : undefined;
    const writers = [cell.head, cell.tail].filter((t) => t !== NONE);
    return {
      id: `${prefix}${i}`,
      // The read step also frees the pages: say who held them while being read.
      owner:
        cell.owner !== NONE
          ? t('pv.requestTenant', { name: name(c, cell.owner), tenant: String(tenantOf(c, cell.owner)) })
          : r && read
            ? t('pv.freedAfterRead', { who: name(c, read.request) })
            : t('pv.free'),
      ownerTenant: tenantOf(c, cell.owner),
      content: contentText(c, cell.head, cell.tail, t),
      contentTenant: tenantOf(c, cell.tail !== NONE ? cell.tail : cell.head),
      stale: writers.some((w) => w !== cell.owner),
      read: r && read ? verdictOf(read.request, r.head, r.tail) : null,
    };
  });
}

/** The picture of state `s`, its words in the page's language (`t`; English by default). */
export function picture(c: ProtocolConfig, s: ProtocolState, read?: ReadObservation, t: Translate = english): Picture {
  const messages: string[] = [];
  s.reqs.forEach((r, i) => {
    if (r.done !== 'none') messages.push(t('msg.done', { room: name(c, i), status: r.done }));
    if (r.abortNotice) messages.push(t('msg.abort', { room: name(c, i) }));
    if (r.ack) messages.push(t('msg.ack', { room: name(c, i) }));
  });
  const requests = s.reqs.map((r, i) => {
    const spec = c.requests[i]!;
    const phase = t(`decodePhase.${r.decode}`);
    const decode = r.dst.length > 0 && (r.decode === 'reserved' || r.decode === 'aborting') ? t('pv.phasePages', { phase, pages: r.dst.map((p) => `d${p}`).join(',') }) : phase;
    const prefillBits: string[] = [t(`prefillPhase.${r.prefill}`)];
    if (r.aborted) prefillBits.unshift(t('pv.markedAborted'));
    if (r.prefill === 'computing') prefillBits.push(t('pv.sent', { sent: String(r.sent), total: String(r.src.length) }));
    return {
      name: spec.name,
      tenant: spec.tenant,
      pages: spec.pages,
      decode,
      prefill: prefillBits.join(t('ps.sep')),
      status: r.status === 0 ? t('pv.pending') : String(r.status),
    };
  });
  const reads = read
    ? read.pages.map((p) => {
        const verdict = verdictOf(read.request, p.head, p.tail);
        return { page: `d${p.page}`, what: t('pv.readWhat', { content: contentText(c, p.head, p.tail, t), what: readWords(verdict, t) }), verdict };
      })
    : [];
  return { prefill: pageViews(c, s.prefill, 'p', t), decode: pageViews(c, s.decode, 'd', t, read), messages, requests, reads };
}
