/**
 * A small, exhaustively explorable model of the prefill → decode KV handoff
 * (shared/design/sglang-pd-mechanics.md): one prefill node, one decode node, a few pages each with
 * lowest-id-first reuse (or SGLang's staged free list, `freeList`), a handful of requests from two
 * tenants. Its pages are abstract: none is reserved as the engine's page 0 is.
 *
 * Sizes are in pages, not tokens: a request's prompt is a whole number of pages, except the buggy
 * path's one-token placeholder, which fills only the head of a page. A page therefore carries two
 * content tags, `head` and `tail`, each the request whose computation produced those slots (or NONE
 * for zeros). Whole-page copies carry both, so a partly written prefill page drags its stale tail
 * into decode, as the note infers for RDMA.
 *
 * Nothing here knows what a violation is. The defects and mitigations change control flow only
 * (what is rejected, computed, copied, checked, freed); the properties in explore.ts look at what
 * decode actually read.
 */
import type { ProtocolDesign } from '../protocolVocabulary.ts';
import { poolRules } from '../switches.ts';

export type { ProtocolDesign, ProtocolRejectPath, RequestSpec } from '../protocolVocabulary.ts';

/** "No request": a free page, or zero-filled / cleared slots. */
export const NONE = -1;

/** Deliberate bugs, for checking that the explorer catches them. */
export type Mutation = 'none' | 'decode-frees-early' | 'success-without-send' | 'double-allocation';

/** One explorable configuration: a design, its name, and a deliberate bug or none. */
export interface ProtocolConfig extends ProtocolDesign {
  id: string;
  title: string;
  mutation: Mutation;
}

/** A pool's free list under the `staged` policy: the current list, front first, and the pages freed since the last merge. */
export interface FreeOrder {
  list: number[];
  staged: number[];
}

export interface PageCell {
  /** Request holding the page in its block table, NONE when on the free list. */
  owner: number;
  /** Writer of the page's first slots; also the page's "written for" metadata tag. */
  head: number;
  /** Writer of the rest of the page. */
  tail: number;
}

export type DecodePhase = 'new' | 'rejected' | 'queued' | 'reserved' | 'aborting' | 'finished';
export type PrefillPhase = 'idle' | 'waiting' | 'computing' | 'finished' | 'stopped';
export type DoneStatus = 'none' | 'Success' | 'Failed';
/** 0: not answered yet; 499: the client went away. */
export type HttpStatus = 0 | 200 | 400 | 499 | 500;

export interface RequestState {
  decode: DecodePhase;
  prefill: PrefillPhase;
  /** Prefill marked it aborted: its input is one placeholder token. Decode is never told. */
  aborted: boolean;
  /** Decode block table (destination page ids sent to prefill). */
  dst: number[];
  /** Prefill pages. */
  src: number[];
  /** Chunks prefill has RDMA-written; frozen once it sends done. */
  sent: number;
  /** The done message in flight from prefill to decode; it carries only (room, status). */
  done: DoneStatus;
  /** Decode → prefill: "this request was aborted", not yet seen by prefill. */
  abortNotice: boolean;
  /** Prefill → decode (fenced abort): "I will write no more pages for this room". */
  ack: boolean;
  status: HttpStatus;
}

export interface ProtocolState {
  reqs: RequestState[];
  /** Decode pre-allocation FIFO; the head blocks the queue while too few pages are free. */
  decodeQueue: number[];
  /** Prefill admission FIFO, in handshake order. */
  prefillQueue: number[];
  prefill: PageCell[];
  decode: PageCell[];
  /** The staged free lists (`freeList: 'staged'` only; the sorted policy needs none). */
  prefillFree?: FreeOrder;
  decodeFree?: FreeOrder;
}

export interface PageRead {
  page: number;
  head: number;
  tail: number;
}

/** What decode read when it answered: the observation the properties judge. */
export interface ReadObservation {
  request: number;
  status: 200;
  pages: PageRead[];
}

export type TransitionKind =
  | 'arrive'
  | 'decode-reserve'
  | 'prefill-admit'
  | 'prefill-retire'
  | 'prefill-chunk'
  | 'prefill-done'
  | 'decode-done'
  | 'decode-abort'
  | 'prefill-sees-abort'
  | 'decode-ack';

export interface Transition {
  kind: TransitionKind;
  request: number;
  label: string;
  next: ProtocolState;
  read?: ReadObservation;
}

export const PREFILL_NODE = 'prefill-0';
export const DECODE_NODE = 'decode-0';

export function configProblems(c: ProtocolConfig): string[] {
  const problems: string[] = [];
  const small = (field: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min || v > 9) problems.push(`${field} must be an integer from ${min} to 9, got ${v}`);
  };
  small('advertisedPages', c.advertisedPages, 1);
  small('prefillPages', c.prefillPages, 1);
  small('decodePages', c.decodePages, 1);
  if (c.requests.length < 1 || c.requests.length > 9) problems.push('between 1 and 9 requests');
  c.requests.forEach((r, i) => {
    if (!/^[A-Z]$/.test(r.name)) problems.push(`requests[${i}].name must be one capital letter`);
    small(`requests[${i}].pages`, r.pages, 1);
    small(`requests[${i}].tenant`, r.tenant, 1);
  });
  if (new Set(c.requests.map((r) => r.name)).size !== c.requests.length) problems.push('request names must differ');
  return problems;
}

/** The deployment capacity check refuses a deployment whose advertised context exceeds its cache. */
export function deploymentRefused(c: ProtocolConfig): boolean {
  return c.mitigations.deploymentCapacityCheck === true && c.advertisedPages > c.prefillPages;
}

export function initialState(c: ProtocolConfig): ProtocolState {
  const problems = configProblems(c);
  if (problems.length > 0) throw new Error(`protocol config ${c.id}: ${problems.join('; ')}`);
  const cells = (n: number) => Array.from({ length: n }, () => ({ owner: NONE, head: NONE, tail: NONE }));
  return {
    reqs: c.requests.map(() => ({
      decode: 'new',
      prefill: 'idle',
      aborted: false,
      dst: [],
      src: [],
      sent: 0,
      done: 'none',
      abortNotice: false,
      ack: false,
      status: 0,
    })),
    decodeQueue: [],
    prefillQueue: [],
    prefill: cells(c.prefillPages),
    decode: cells(c.decodePages),
    ...(c.freeList === 'staged'
      ? { prefillFree: { list: Array.from({ length: c.prefillPages }, (_, i) => i), staged: [] }, decodeFree: { list: Array.from({ length: c.decodePages }, (_, i) => i), staged: [] } }
      : {}),
  };
}

function clone(s: ProtocolState): ProtocolState {
  return {
    reqs: s.reqs.map((r) => ({ ...r, dst: r.dst.slice(), src: r.src.slice() })),
    decodeQueue: s.decodeQueue.slice(),
    prefillQueue: s.prefillQueue.slice(),
    prefill: s.prefill.map((p) => ({ ...p })),
    decode: s.decode.map((p) => ({ ...p })),
    ...(s.prefillFree && s.decodeFree
      ? { prefillFree: { list: s.prefillFree.list.slice(), staged: s.prefillFree.staged.slice() }, decodeFree: { list: s.decodeFree.list.slice(), staged: s.decodeFree.staged.slice() } }
      : {}),
  };
}

const DECODE_CODE: Record<DecodePhase, string> = { new: 'n', rejected: 'x', queued: 'q', reserved: 'r', aborting: 'a', finished: 'f' };
const PREFILL_CODE: Record<PrefillPhase, string> = { idle: 'i', waiting: 'w', computing: 'c', finished: 'f', stopped: 's' };
const DONE_CODE: Record<DoneStatus, string> = { none: '-', Success: 'S', Failed: 'F' };

/** Canonical key for the visited set; two states with the same key behave identically. */
export function encodeState(s: ProtocolState): string {
  let k = '';
  for (const r of s.reqs) {
    k += DECODE_CODE[r.decode] + PREFILL_CODE[r.prefill] + (r.aborted ? '!' : '.') + r.dst.join('') + '/' + r.src.join('') + '/' +
      r.sent + DONE_CODE[r.done] + (r.abortNotice ? 'n' : '.') + (r.ack ? 'k' : '.') + r.status + ';';
  }
  k += r2(s.decodeQueue) + '|' + r2(s.prefillQueue) + '|';
  for (const p of s.prefill) k += tag(p.owner) + tag(p.head) + tag(p.tail);
  k += '|';
  for (const p of s.decode) k += tag(p.owner) + tag(p.head) + tag(p.tail);
  // The staged lists' order decides which pages come next: part of the state.
  if (s.prefillFree && s.decodeFree) k += `|${s.prefillFree.list.join('')}:${s.prefillFree.staged.join('')}|${s.decodeFree.list.join('')}:${s.decodeFree.staged.join('')}`;
  return k;
}

function r2(q: number[]): string {
  return q.join('');
}

function tag(t: number): string {
  return t === NONE ? '_' : String(t);
}

// --- labels -----------------------------------------------------------------------------------

export function requestLabel(c: ProtocolConfig, r: number): string {
  const spec = c.requests[r];
  return spec ? `${spec.name} (tenant ${spec.tenant})` : `request ${r}`;
}

export function contentLabel(c: ProtocolConfig, t: number): string {
  if (t === NONE) return 'zeros';
  const spec = c.requests[t];
  return spec ? `${spec.name}'s KV (tenant ${spec.tenant})` : `request ${t}'s KV`;
}

function pageList(prefix: 'p' | 'd', pages: number[]): string {
  return pages.map((p) => `${prefix}${p}`).join(',');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function describeRead(c: ProtocolConfig, read: PageRead): string {
  if (read.head === read.tail) return `d${read.page}: ${contentLabel(c, read.head)}`;
  return `d${read.page}: ${contentLabel(c, read.head)} + stale slots of ${contentLabel(c, read.tail)}`;
}

// --- transitions ------------------------------------------------------------------------------

/**
 * Lowest free ids first, as SGLang's merged free list hands them out; or, with `order` (the staged
 * policy), the front of the current list, after merging in the staged pages and sorting when it is short.
 */
function allocate(c: ProtocolConfig, pool: PageCell[], count: number, r: number, order?: FreeOrder): number[] | null {
  let pages: number[] = [];
  if (order) {
    if (count > order.list.length) {
      order.list = [...order.list, ...order.staged].sort((a, b) => a - b);
      order.staged = [];
    }
    if (count > order.list.length) return null;
    pages = order.list.slice(0, count);
    // The mutation below leaves its page on the free list: keep it at the front.
    order.list = order.list.slice(c.mutation === 'double-allocation' ? count - 1 : count);
  } else {
    for (let p = 0; p < pool.length && pages.length < count; p++) if (pool[p]!.owner === NONE) pages.push(p);
  }
  if (pages.length < count) return null;
  const zero = poolRules(c.mitigations).zeroOnAllocate;
  pages.forEach((p, i) => {
    if (zero) {
      pool[p]!.head = NONE;
      pool[p]!.tail = NONE;
    }
    // Mutation: an off-by-one leaves the last page handed out on the free list.
    if (c.mutation === 'double-allocation' && i === pages.length - 1) return;
    pool[p]!.owner = r;
  });
  return pages;
}

/** Pages go back on the free list with their contents, unless a zero-on-free rule is on. */
function release(c: ProtocolConfig, pool: PageCell[], pages: number[], r: number, order?: FreeOrder): void {
  for (const p of pages) {
    const cell = pool[p]!;
    // Only the holder's own release takes the page back: a stale block table must not free a page
    // that was already handed to someone else.
    if (cell.owner === r) {
      cell.owner = NONE;
      order?.staged.push(p);
    }
    if (poolRules(c.mitigations).zeroOnFree && cell.owner === NONE) {
      cell.head = NONE;
      cell.tail = NONE;
    }
  }
}

function computePages(c: ProtocolConfig, s: ProtocolState, r: number): number {
  return s.reqs[r]!.aborted ? 1 : c.requests[r]!.pages;
}

export function successors(c: ProtocolConfig, s: ProtocolState): Transition[] {
  const out: Transition[] = [];
  if (deploymentRefused(c)) return out;
  s.reqs.forEach((req, r) => {
    if (req.decode === 'new') out.push(arrive(c, s, r));
  });
  const dHead = s.decodeQueue[0];
  if (dHead !== undefined) {
    const t = decodeReserve(c, s, dHead);
    if (t) out.push(t);
  }
  const pHead = s.prefillQueue[0];
  if (pHead !== undefined) {
    const t = prefillAdmit(c, s, pHead);
    if (t) out.push(t);
  }
  s.reqs.forEach((req, r) => {
    if (req.prefill === 'computing' && req.aborted && c.mitigations.retireWithoutSend) {
      out.push(prefillRetire(c, s, r));
    } else if (req.prefill === 'computing') {
      if (req.sent < req.src.length) out.push(prefillChunk(c, s, r));
      const allSent = req.sent === req.src.length;
      // Mutation: prefill reports Success with chunks still unsent.
      if (allSent || c.mutation === 'success-without-send') out.push(prefillDone(c, s, r));
    }
    if (req.done !== 'none') out.push(decodeDone(c, s, r));
    if (c.decodeAbort && req.decode === 'reserved' && (req.prefill === 'waiting' || req.prefill === 'computing')) {
      out.push(decodeAbort(c, s, r));
    }
    if (req.abortNotice) out.push(prefillSeesAbort(c, s, r));
    if (req.ack) out.push(decodeAck(c, s, r));
  });
  return out;
}

function arrive(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  const spec = c.requests[r]!;
  const who = `${spec.name} (tenant ${spec.tenant}, ${plural(spec.pages, 'page')})`;
  const reject = (why: string): Transition => {
    req.decode = 'rejected';
    req.status = 400;
    return { kind: 'arrive', request: r, label: `${who} arrives; ${why} → 400`, next: n };
  };
  // The tokenizer checks only the advertised context (upstream's rule: at or over it).
  if (c.tokenizerRule === 'sglang' ? spec.pages >= c.advertisedPages : spec.pages > c.advertisedPages) {
    const how = c.tokenizerRule === 'sglang' ? 'not shorter than' : 'longer than';
    return reject(`the tokenizer rejects it: ${how} the advertised context of ${plural(c.advertisedPages, 'page')}`);
  }
  const notes: string[] = [];
  if (spec.pages > c.prefillPages) {
    if (c.rejectPath === 'fixed') {
      return reject(`over the prefill limit of ${plural(c.prefillPages, 'page')}: retired at admission on both sides, before any reservation or transfer`);
    }
    // The scheduler marks it aborted and swaps in one placeholder token, yet leaves it queued.
    req.aborted = true;
    notes.push(`over the prefill limit of ${plural(c.prefillPages, 'page')}: prefill marks ${spec.name} aborted (400 pending), input → 1 placeholder token; decode is not told`);
  }
  // Decode admission checks the full prompt against its own pool.
  if (spec.pages > c.decodePages) {
    return reject([...notes, `decode rejects it: longer than ${DECODE_NODE}'s ${plural(c.decodePages, 'page')}`].join('; '));
  }
  const label = [`${who} arrives`, ...notes].join('; ');
  req.decode = 'queued';
  n.decodeQueue.push(r);
  return { kind: 'arrive', request: r, label: `${label}; ${DECODE_NODE} queues it for ${plural(spec.pages, 'page')}`, next: n };
}

function decodeReserve(c: ProtocolConfig, s: ProtocolState, r: number): Transition | null {
  const spec = c.requests[r]!;
  const n = clone(s);
  const pages = allocate(c, n.decode, spec.pages, r, n.decodeFree);
  if (!pages) return null; // head-of-line blocking: nothing behind it moves either
  const req = n.reqs[r]!;
  n.decodeQueue.shift();
  req.decode = 'reserved';
  req.dst = pages;
  // Mutation: decode puts the pages back on the free list while still expecting writes into them.
  if (c.mutation === 'decode-frees-early') for (const p of pages) n.decode[p]!.owner = NONE;
  req.prefill = 'waiting';
  n.prefillQueue.push(r);
  return {
    kind: 'decode-reserve',
    request: r,
    label: `${DECODE_NODE} reserves ${pageList('d', pages)} for ${requestLabel(c, r)} — the full ${spec.pages}-page prompt — and sends the page ids to ${PREFILL_NODE}`,
    next: n,
  };
}

function prefillAdmit(c: ProtocolConfig, s: ProtocolState, r: number): Transition | null {
  const n = clone(s);
  const req = n.reqs[r]!;
  const need = computePages(c, s, r);
  const pages = allocate(c, n.prefill, need, r, n.prefillFree);
  if (!pages) return null;
  n.prefillQueue.shift();
  req.prefill = 'computing';
  req.src = pages;
  const what = req.aborted ? '1 placeholder token' : plural(need, 'page');
  return {
    kind: 'prefill-admit',
    request: r,
    label: `${PREFILL_NODE} admits ${requestLabel(c, r)} (capacity check passes for ${what}) and allocates ${pageList('p', pages)}`,
    next: n,
  };
}

/** Pages one chunk of this request computes and sends, from page `sent` on. */
function chunkSize(c: ProtocolConfig, req: RequestState): number {
  const left = req.src.length - req.sent;
  const per = c.chunkPages ?? 1;
  return per === 'whole' ? left : Math.min(per, left);
}

function prefillChunk(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  const first = req.sent;
  const size = chunkSize(c, req);
  const chunks = c.chunkPages === 'whole' ? 1 : Math.ceil(req.src.length / (c.chunkPages ?? 1));
  const chunk = c.chunkPages === 'whole' ? 1 : Math.floor(first / (c.chunkPages ?? 1)) + 1;
  const late: string[] = [];
  let stale = '';
  for (let i = first; i < first + size; i++) {
    const srcPage = req.src[i]!;
    const dstPage = req.dst[i]!;
    const src = n.prefill[srcPage]!;
    src.head = r;
    // A full page is overwritten; the placeholder fills one slot and the rest keeps what was there.
    if (!req.aborted) src.tail = r;
    else stale = ` (1 placeholder token; the rest of p${srcPage} keeps ${contentLabel(c, src.tail)})`;
    const dst = n.decode[dstPage]!;
    dst.head = src.head;
    dst.tail = src.tail;
    if (req.decode !== 'reserved' && req.decode !== 'aborting') {
      late.push(`d${dstPage} is now ${dst.owner === NONE ? 'a free page' : `held by ${requestLabel(c, dst.owner)}`}`);
    }
  }
  req.sent = first + size;
  const src = req.src.slice(first, first + size);
  const dst = req.dst.slice(first, first + size);
  const whole = size === 1 ? `the whole page p${src[0]} → d${dst[0]}` : `the whole pages ${pageList('p', src)} → ${pageList('d', dst)}`;
  let label = `${PREFILL_NODE} computes chunk ${chunk}/${chunks} of ${requestLabel(c, r)}${stale} and RDMA-writes ${whole}`;
  if (late.length > 0) label += ` — a late write: decode already aborted ${c.requests[r]!.name}; ${late.join(', ')}`;
  return { kind: 'prefill-chunk', request: r, label, next: n };
}

/** PR #36988: prefill computes the aborted request's placeholder, then retires it without any KV send. */
function prefillRetire(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  const srcPage = req.src[0]!;
  // The placeholder's compute writes the head of its prefill page; nothing goes to decode.
  n.prefill[srcPage]!.head = r;
  release(c, n.prefill, req.src, r, n.prefillFree);
  const freed = pageList('p', req.src);
  req.src = [];
  req.prefill = 'finished';
  req.done = 'Failed';
  const cleared = poolRules(c.mitigations).zeroOnFree ? 'cleared' : 'not cleared';
  return {
    kind: 'prefill-retire',
    request: r,
    label: `${PREFILL_NODE} computes the placeholder of aborted ${requestLabel(c, r)}, retires the result without any KV send, frees ${freed} (${cleared}) and sends done(room ${c.requests[r]!.name}, Failed)`,
    next: n,
  };
}

function prefillDone(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  release(c, n.prefill, req.src, r, n.prefillFree);
  const freed = pageList('p', req.src);
  req.src = [];
  req.prefill = 'finished';
  req.done = 'Success';
  const cleared = poolRules(c.mitigations).zeroOnFree ? 'cleared' : 'not cleared';
  return {
    kind: 'prefill-done',
    request: r,
    label: `${PREFILL_NODE} frees ${freed} (${cleared}) and sends done(room ${c.requests[r]!.name}, Success): ${req.sent} of ${plural(computePages(c, s, r), 'computed page')} sent`,
    next: n,
  };
}

function decodeDone(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  const name = c.requests[r]!.name;
  const msg = `done(room ${name}, ${req.done})`;
  const status = req.done;
  req.done = 'none';
  if (req.decode === 'finished') {
    return { kind: 'decode-done', request: r, label: `${DECODE_NODE} drops ${msg}: no receiver for the room (${name} was aborted)`, next: n };
  }
  const free = (result: Exclude<HttpStatus, 0>, why: string): Transition => {
    const pages = pageList('d', req.dst);
    release(c, n.decode, req.dst, r, n.decodeFree);
    req.decode = 'finished';
    req.status = result;
    const cleared = poolRules(c.mitigations).zeroOnFree ? 'cleared' : 'not cleared';
    return { kind: 'decode-done', request: r, label: `${DECODE_NODE} gets ${msg}; ${why}; frees ${pages} (${cleared})`, next: n };
  };
  if (req.decode === 'aborting') return free(499, 'prefill has finished writing, so the aborted request can let go of its pages');
  // A Failed poll: decode aborts the request with 500 and releases its pages (the mechanics note).
  if (status === 'Failed') return free(500, 'prefill reported Failed → 500');
  // Only the room id is checked by default; the message says nothing about how much was written.
  if (c.mitigations.transferredLengthCheck && req.sent !== req.dst.length) {
    return free(500, `transferred-length check: reserved ${plural(req.dst.length, 'page')}, ${req.sent} written → fails closed, 500`);
  }
  if (c.mitigations.perReadIntegrityCheck) {
    const bad = req.dst.filter((p) => n.decode[p]!.head !== r);
    if (bad.length > 0) return free(500, `per-read integrity check: ${pageList('d', bad)} not written for ${name} in this handoff → fails closed, 500`);
  }
  // Decode runs with the full sequence length over every page of its block table.
  const pages = req.dst.map((p) => ({ page: p, head: n.decode[p]!.head, tail: n.decode[p]!.tail }));
  const t = free(200, `decodes over ${pageList('d', req.dst)} → 200; reads ${pages.map((p) => describeRead(c, p)).join('; ')}`);
  t.read = { request: r, status: 200, pages };
  return t;
}

function decodeAbort(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  const pages = pageList('d', req.dst);
  req.abortNotice = true;
  if (!c.mitigations.fenceLateWrites) {
    release(c, n.decode, req.dst, r, n.decodeFree);
    req.decode = 'finished';
    req.status = 499;
    return {
      kind: 'decode-abort',
      request: r,
      label: `client of ${requestLabel(c, r)} goes away: ${DECODE_NODE} aborts it and frees ${pages} at once, with the transfer still in flight (prefill is told asynchronously)`,
      next: n,
    };
  }
  req.decode = 'aborting';
  return {
    kind: 'decode-abort',
    request: r,
    label: `client of ${requestLabel(c, r)} goes away: ${DECODE_NODE} aborts it, tells prefill, and keeps ${pages} until prefill confirms it writes no more`,
    next: n,
  };
}

function prefillSeesAbort(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  req.abortNotice = false;
  const name = requestLabel(c, r);
  if (req.prefill === 'finished' || req.prefill === 'stopped') {
    return { kind: 'prefill-sees-abort', request: r, label: `${PREFILL_NODE} learns ${name} was aborted; it had already finished`, next: n };
  }
  let what: string;
  if (req.prefill === 'waiting') {
    n.prefillQueue = n.prefillQueue.filter((q) => q !== r);
    what = 'drops it from its queue';
  } else {
    what = `stops sending and frees ${pageList('p', req.src)}`;
    release(c, n.prefill, req.src, r, n.prefillFree);
    req.src = [];
  }
  req.prefill = 'stopped';
  if (c.mitigations.fenceLateWrites) {
    req.ack = true;
    what += ', and confirms to decode that no more writes will land';
  }
  return { kind: 'prefill-sees-abort', request: r, label: `${PREFILL_NODE} learns ${name} was aborted: ${what}`, next: n };
}

function decodeAck(c: ProtocolConfig, s: ProtocolState, r: number): Transition {
  const n = clone(s);
  const req = n.reqs[r]!;
  req.ack = false;
  const pages = pageList('d', req.dst);
  release(c, n.decode, req.dst, r, n.decodeFree);
  req.decode = 'finished';
  req.status = 499;
  return { kind: 'decode-ack', request: r, label: `${DECODE_NODE} gets prefill's confirmation and frees ${pages}`, next: n };
}
