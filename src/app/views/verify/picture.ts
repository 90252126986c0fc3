/**
 * What the counterexample player draws for one state of the handoff model: pure data, so it can be
 * tested without a DOM. Every distinction the picture makes is spelled out in text as well (owner,
 * writer, "stale", "read now"), so colour only repeats it.
 */
import { NONE, type ProtocolConfig, type ProtocolState, type ReadObservation } from '../../../engine/protocol/index.ts';

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

function writer(c: ProtocolConfig, r: number): string {
  return `${name(c, r)} (T${tenantOf(c, r)})`;
}

function contentText(c: ProtocolConfig, head: number, tail: number): string {
  if (head === NONE && tail === NONE) return 'zeros';
  if (head === tail) return writer(c, head);
  const h = head === NONE ? 'zeros' : writer(c, head);
  const t = tail === NONE ? 'zeros' : `stale ${writer(c, tail)}`;
  return `${h} + ${t}`;
}

function verdictOf(request: number, head: number, tail: number): ReadVerdict {
  const part = (t: number) => (t === request ? 'own' : t === NONE ? 'zeros' : 'foreign');
  const a = part(head);
  const b = part(tail);
  if (a === b) return a;
  if (a === 'foreign' || b === 'foreign') return a === 'zeros' || b === 'zeros' ? 'foreign' : 'own+foreign';
  return 'own+zeros';
}

const READ_WORDS: Record<ReadVerdict, string> = {
  own: 'its own KV',
  foreign: "another request's KV",
  zeros: 'zeros (never written for it)',
  'own+foreign': "its own KV, then another request's stale slots",
  'own+zeros': 'its own KV, then zeros',
};

export function readWords(v: ReadVerdict): string {
  return READ_WORDS[v];
}

function pageViews(c: ProtocolConfig, cells: ProtocolState['decode'], prefix: 'p' | 'd', read?: ReadObservation): PageView[] {
  return cells.map((cell, i) => {
    const r = prefix === 'd' ? read?.pages.find((p) => p.page === i) : undefined;
    const writers = [cell.head, cell.tail].filter((t) => t !== NONE);
    return {
      id: `${prefix}${i}`,
      // The read step also frees the pages: say who held them while being read.
      owner:
        cell.owner !== NONE ? `${name(c, cell.owner)} (tenant ${tenantOf(c, cell.owner)})` : r && read ? `free (read by ${name(c, read.request)}, then freed)` : 'free',
      ownerTenant: tenantOf(c, cell.owner),
      content: contentText(c, cell.head, cell.tail),
      contentTenant: tenantOf(c, cell.tail !== NONE ? cell.tail : cell.head),
      stale: writers.some((w) => w !== cell.owner),
      read: r && read ? verdictOf(read.request, r.head, r.tail) : null,
    };
  });
}

const DECODE_WORDS: Record<ProtocolState['reqs'][number]['decode'], string> = {
  new: 'not arrived',
  rejected: 'rejected',
  queued: 'queued',
  reserved: 'pages reserved',
  aborting: 'aborting (pages kept)',
  finished: 'finished',
};

const PREFILL_WORDS: Record<ProtocolState['reqs'][number]['prefill'], string> = {
  idle: '—',
  waiting: 'waiting for prefill pages',
  computing: 'computing / sending',
  finished: 'done sent',
  stopped: 'stopped',
};

export function picture(c: ProtocolConfig, s: ProtocolState, read?: ReadObservation): Picture {
  const messages: string[] = [];
  s.reqs.forEach((r, i) => {
    if (r.done !== 'none') messages.push(`done(room ${name(c, i)}, ${r.done}) → decode — no page count`);
    if (r.abortNotice) messages.push(`abort(room ${name(c, i)}) → prefill`);
    if (r.ack) messages.push(`no more writes for room ${name(c, i)} → decode`);
  });
  const requests = s.reqs.map((r, i) => {
    const spec = c.requests[i]!;
    const bits: string[] = [DECODE_WORDS[r.decode]];
    if (r.dst.length > 0 && (r.decode === 'reserved' || r.decode === 'aborting')) bits.push(r.dst.map((p) => `d${p}`).join(','));
    const prefillBits: string[] = [PREFILL_WORDS[r.prefill]];
    if (r.aborted) prefillBits.unshift('marked aborted, 1 placeholder token');
    if (r.prefill === 'computing') prefillBits.push(`${r.sent}/${r.src.length} sent`);
    return {
      name: spec.name,
      tenant: spec.tenant,
      pages: spec.pages,
      decode: bits.join(': '),
      prefill: prefillBits.join('; '),
      status: r.status === 0 ? 'pending' : String(r.status),
    };
  });
  const reads = read
    ? read.pages.map((p) => {
        const verdict = verdictOf(read.request, p.head, p.tail);
        return { page: `d${p.page}`, what: `${contentText(c, p.head, p.tail)}: ${READ_WORDS[verdict]}`, verdict };
      })
    : [];
  return { prefill: pageViews(c, s.prefill, 'p'), decode: pageViews(c, s.decode, 'd', read), messages, requests, reads };
}
