/**
 * The protocol model's steps and violations in the page's language. The model (engine/protocol)
 * writes an English label for each transition, which the CLI prints; the page rebuilds each sentence
 * from the step's kind, the request, and the states before and after it, through the catalogue. A
 * test holds the English rebuild equal to the model's own label for every step of every
 * counterexample, so the French says what the model did.
 */
import {
  NONE,
  ownershipClash,
  readFindings,
  type ReadPart,
  PREFILL_NODE,
  DECODE_NODE,
  type ProtocolConfig,
  type ProtocolState,
  type PageRead,
  type ReadObservation,
  type Step,
} from '../../../engine/protocol/index.ts';
import { poolRules } from '../../../engine/switches.ts';
import type { Translate } from '../../i18n/i18n.ts';

function list(prefix: 'p' | 'd', pages: number[]): string {
  return pages.map((p) => `${prefix}${p}`).join(',');
}

/** Shared phrases of the model's sentences, in the page's language. */
export function phrases(c: ProtocolConfig, t: Translate) {
  const pages = (n: number) => t(n === 1 ? 'ps.page' : 'ps.pages', { n: String(n) });
  const request = (r: number) => {
    const spec = c.requests[r];
    return spec ? t('ps.request', { name: spec.name, tenant: String(spec.tenant) }) : `#${r}`;
  };
  const content = (w: number) => {
    if (w === NONE) return t('ps.zeros');
    const spec = c.requests[w];
    return spec ? t('ps.kv', { name: spec.name, tenant: String(spec.tenant) }) : `#${w}`;
  };
  const read = (p: PageRead) => (p.head === p.tail ? t('ps.readSame', { page: String(p.page), content: content(p.head) }) : t('ps.readMixed', { page: String(p.page), head: content(p.head), tail: content(p.tail) }));
  const cleared = () => t(poolRules(c.mitigations).zeroOnFree ? 'ps.cleared' : 'ps.notCleared');
  /** "; " in English, « ; » with its narrow no-break space in French. */
  const sep = t('ps.sep');
  return { pages, request, content, read, cleared, sep };
}

/** One step of a counterexample, from the state before it. */
export function describeStep(c: ProtocolConfig, before: ProtocolState, step: Step, t: Translate): string {
  const { pages, request, content, read, cleared, sep } = phrases(c, t);
  const r = step.request;
  const spec = c.requests[r]!;
  const was = before.reqs[r]!;
  const now = step.state.reqs[r]!;
  switch (step.kind) {
    case 'arrive': {
      const who = t('ps.who', { name: spec.name, tenant: String(spec.tenant), pages: pages(spec.pages) });
      if (now.decode === 'rejected') {
        let why: string;
        if (c.tokenizerRule === 'sglang' ? spec.pages >= c.advertisedPages : spec.pages > c.advertisedPages) {
          why = t(c.tokenizerRule === 'sglang' ? 'ps.tokenizerRejectsUpstream' : 'ps.tokenizerRejects', { pages: pages(c.advertisedPages) });
        }
        else if (spec.pages > c.prefillPages && c.rejectPath === 'fixed') why = t('ps.retiredAtAdmission', { pages: pages(c.prefillPages) });
        else {
          const notes = spec.pages > c.prefillPages ? [t('ps.markedAborted', { pages: pages(c.prefillPages), name: spec.name })] : [];
          why = [...notes, t('ps.decodeRejects', { node: DECODE_NODE, pages: pages(c.decodePages) })].join(sep);
        }
        return t('ps.rejectedArrival', { who, why });
      }
      const parts = [t('ps.arrives', { who })];
      if (now.aborted) parts.push(t('ps.markedAborted', { pages: pages(c.prefillPages), name: spec.name }));
      parts.push(t('ps.queues', { node: DECODE_NODE, pages: pages(spec.pages) }));
      return parts.join(sep);
    }
    case 'decode-reserve':
      return t('ps.reserve', { node: DECODE_NODE, list: list('d', now.dst), request: request(r), n: String(spec.pages), prefill: PREFILL_NODE });
    case 'prefill-retire':
      return t('ps.retire', { node: PREFILL_NODE, request: request(r), name: spec.name, list: list('p', was.src), cleared: cleared() });
    case 'prefill-admit':
      return t('ps.admit', { node: PREFILL_NODE, request: request(r), what: was.aborted ? t('ps.onePlaceholder') : pages(spec.pages), list: list('p', now.src) });
    case 'prefill-chunk': {
      const first = was.sent;
      const size = now.sent - first;
      const per = c.chunkPages ?? 1;
      const src = was.src.slice(first, first + size);
      const dst = was.dst.slice(first, first + size);
      const last = src[src.length - 1]!;
      let label = t(size === 1 ? 'ps.chunk' : 'ps.chunkPages', {
        node: PREFILL_NODE,
        i: String(per === 'whole' ? 1 : Math.floor(first / per) + 1),
        count: String(per === 'whole' ? 1 : Math.ceil(was.src.length / per)),
        request: request(r),
        placeholder: was.aborted ? t('ps.chunkPlaceholder', { src: String(last), content: content(step.state.prefill[last]!.tail) }) : '',
        src: size === 1 ? String(src[0]) : list('p', src),
        dst: size === 1 ? String(dst[0]) : list('d', dst),
      });
      if (was.decode !== 'reserved' && was.decode !== 'aborting') {
        const holders = dst.map((d) => {
          const owner = step.state.decode[d]!.owner;
          return t('ps.lateWriteTarget', { dst: String(d), holder: owner === NONE ? t('ps.aFreePage') : t('ps.heldBy', { request: request(owner) }) });
        });
        label += t('ps.lateWrite', { name: spec.name, targets: holders.join(', ') });
      }
      return label;
    }
    case 'prefill-done': {
      const computed = was.aborted ? 1 : spec.pages;
      return t('ps.prefillDone', {
        node: PREFILL_NODE,
        list: list('p', was.src),
        cleared: cleared(),
        name: spec.name,
        sent: String(was.sent),
        computed: t(computed === 1 ? 'ps.computedPage' : 'ps.computedPages', { n: String(computed) }),
      });
    }
    case 'decode-done': {
      const msg = t('ps.doneMsg', { name: spec.name, status: was.done });
      if (was.decode === 'finished') return t('ps.dropsDone', { node: DECODE_NODE, msg, name: spec.name });
      const gets = (why: string) => t('ps.decodeGets', { node: DECODE_NODE, msg, why, list: list('d', was.dst), cleared: cleared() });
      if (was.decode === 'aborting') return gets(t('ps.abortFinished'));
      if (was.done === 'Failed') return gets(t('ps.failedOnPrefill'));
      if (c.mitigations.transferredLengthCheck && was.sent !== was.dst.length) return gets(t('ps.lengthCheck', { pages: pages(was.dst.length), sent: String(was.sent) }));
      if (c.mitigations.perReadIntegrityCheck) {
        const bad = was.dst.filter((p) => before.decode[p]!.head !== r);
        if (bad.length > 0) return gets(t('ps.integrityCheck', { list: list('d', bad), name: spec.name }));
      }
      const reads = (step.read?.pages ?? []).map(read).join(sep);
      return gets(t('ps.decodes', { list: list('d', was.dst), reads }));
    }
    case 'decode-abort':
      return t(c.mitigations.fenceLateWrites ? 'ps.abortFenced' : 'ps.abortUnfenced', { request: request(r), node: DECODE_NODE, list: list('d', was.dst) });
    case 'prefill-sees-abort': {
      if (was.prefill === 'finished' || was.prefill === 'stopped') return t('ps.seesAbortFinished', { node: PREFILL_NODE, request: request(r) });
      let what = was.prefill === 'waiting' ? t('ps.dropsFromQueue') : t('ps.stopsSending', { list: list('p', was.src) });
      if (c.mitigations.fenceLateWrites) what += t('ps.confirms');
      return t('ps.seesAbort', { node: PREFILL_NODE, request: request(r), what });
    }
    case 'decode-ack':
      return t('ps.ack', { node: DECODE_NODE, list: list('d', was.dst) });
  }
}

/** What a read shows against confidentiality and integrity (engine: judgeRead), in the page's language. */
export function describeReadViolation(c: ProtocolConfig, read: ReadObservation, property: 'confidentiality' | 'integrity', t: Translate): string | null {
  const { request, content, sep } = phrases(c, t);
  // The engine's findings (readFindings, judgeRead's), in the page's language.
  const findings = readFindings(read);
  const name = (p: ReadPart) => `d${p.page}${p.staleSlots ? t('pv.staleSlots') : ''}`;
  const foreign = findings.foreign.map((p) => t('pv.item', { page: name(p), what: content(p.writer) }));
  const unwritten = findings.unwritten.map(name);
  if (property === 'confidentiality') return foreign.length ? t('pv.violationConfidentiality', { request: request(read.request), list: foreign.join(sep) }) : null;
  return unwritten.length ? t('pv.violationIntegrity', { request: request(read.request), list: unwritten.join(', ') }) : null;
}

/** Two live requests naming the same page (engine: judgeState), in the page's language. */
export function describeOwnershipViolation(c: ProtocolConfig, s: ProtocolState, t: Translate): string | null {
  const { request } = phrases(c, t);
  // The engine's finding (ownershipClash, judgeState's), in the page's language.
  const clash = ownershipClash(s);
  return clash ? t('pv.violationOwnership', { page: clash.page, a: request(clash.a), b: request(clash.b) }) : null;
}

/** The violation a counterexample's last step shows, for its property. */
export function describeViolation(c: ProtocolConfig, property: 'confidentiality' | 'integrity' | 'exclusiveOwnership', last: Step | undefined, initial: ProtocolState, t: Translate): string | null {
  if (property === 'exclusiveOwnership') return describeOwnershipViolation(c, last ? last.state : initial, t);
  return last?.read ? describeReadViolation(c, last.read, property, t) : null;
}
