/**
 * What the first screen says about its request, built from the run: which request it tells, what
 * happened to it (read from its response and its handoff's events, never from the switches), and
 * where it stands at the scrubber's instant. Plain data: catalogue keys and their filled-in numbers,
 * so that the same builder serves both languages and a test can read every sentence in Node.
 *
 * The glossed words ({prefill}, {kv}, {decode}, {pages}) and the fact badge ({f14}) stay as
 * placeholders here: the view fills them with elements.
 */
import { INCIDENT_CONFIG, prefillInputLimit } from '../../../engine/config.ts';
import type { EngineEvent } from '../../../engine/events.ts';
import { FLAG_OVER_LIMIT, GATEWAY_PHASE, type RequestTable } from '../../../engine/run.ts';
import type { ResponseRecord } from '../../../engine/simulation.ts';
import { formatNumber, formatUtc, type Lang } from '../../i18n/format.ts';
import type { MessageKey, Translate } from '../../i18n/messages.ts';
import { describeDeploymentRefused } from '../shared/engineText.ts';
import { handoffCounts } from '../../moment/moment.ts';

/** What the story needs of a run: its request columns, its leaks in finish order, its deployments. */
export interface StoryRun {
  requests: RequestTable & { ids: readonly string[] };
  leaks: readonly { request: number }[];
  phases: readonly { prefillLimit: number; pageSize: number; nodes: readonly { kind: string; pageCount: number }[] }[];
  startEpochMs: number;
}

/** What happened to the request, as its response and events show it. */
export type StoryOutcome =
  | 'leaked' // answered 200 from another tenant's KV
  | 'cleared' // answered 200 over pages that held zeros: nobody's data, a wrong answer
  | 'wrong' // answered 200, nobody else's data, yet not the model's answer to the prompt
  | 'check-failed' // decode's check refused to answer: 500
  | 'retired' // prefill retired the placeholder without a KV send: 500
  | 'rejected' // refused before prefill: 400
  | 'served' // the whole prompt computed, sent and read: the model's answer
  | 'other'; // anything else (a client's cancel)

export interface StoryFacts {
  request: number;
  id: string;
  tenant: string;
  outcome: StoryOutcome;
  /** Longer than the serving deployment's prefill input limit. */
  overLimit: boolean;
  /** Prefill computed a one-token placeholder instead of the prompt. */
  placeholder: boolean;
  status: number;
  sent: number;
  computed: number;
  reserved: number;
  written: number;
  staleRead: number;
  zeroRead: number;
  /** Reserved pages no transfer of this handoff wrote (the per-read check names the first). */
  unwritten: number[];
  /** Block index (position in the block table) of the first unwritten page, or −1. */
  firstUnwrittenBlock: number;
  leakedFrom: string[];
  rejectedBy: ResponseRecord['rejectedBy'];
  check: 'transferred-length' | 'per-read-integrity' | null;
  /** When the deployment zeroes pages, as this handoff's events show it; null when they do not say. */
  poolRule: 'free' | 'allocate' | 'none' | null;
  prefillLimit: number;
  /**
   * The serving deployment's prefill pool is the report's (F14, 681,280 tokens): only then does the
   * sentence saying the prompt was longer than it could hold carry F14's badge; on another pool (the
   * microscope's, an operator's) the capacity is the model's.
   */
  reportCapacity: boolean;
  pageSize: number;
  arrivedAt: number;
  finishedAt: number;
  /** 1-based place among the run's leaked responses in finish order; 0 when it did not leak. */
  leakRank: number;
  leakTotal: number;
  /** Output tokens (0 when no text was sent). */
  outputTokens: number;
}

/** Prompts longer than this were over the incident deployment's prefill limit (F14's capacity). */
const INCIDENT_INPUT_LIMIT = prefillInputLimit(INCIDENT_CONFIG);

/**
 * The request the first screen tells: the selected one, else the run's first leaked response, else
 * its first request over prefill's limit (the one that would have leaked), else its first request
 * that the incident's deployment could not have held (with the capacity gap closed, the same request
 * now fits), else the longest prompt it answered 200. Null for a run with no request.
 */
export function storyRequestOf(run: StoryRun, selected: number | null): number | null {
  const r = run.requests;
  if (selected !== null && selected >= 0 && selected < r.count) return selected;
  const leak = run.leaks[0];
  if (leak) return leak.request;
  for (let i = 0; i < r.count; i++) if (r.flags[i]! & FLAG_OVER_LIMIT && r.phase[i] !== GATEWAY_PHASE) return i;
  for (let i = 0; i < r.count; i++) if (r.status[i] === 200 && r.promptTokens[i]! > INCIDENT_INPUT_LIMIT) return i;
  let best = -1;
  for (let i = 0; i < r.count; i++) if (r.status[i] === 200 && (best < 0 || r.promptTokens[i]! > r.promptTokens[best]!)) best = i;
  return best >= 0 ? best : r.count > 0 ? 0 : null;
}

/**
 * Where the page opens when no instant is given: on the story's request, at the first microsecond
 * (the URL's precision) at which its answer has gone out. The counter beside it counts responses
 * sent by the instant, so it then counts the one shown.
 */
export function storyOpening(run: StoryRun): { req: number; t: number } | null {
  const req = storyRequestOf(run, null);
  if (req === null) return null;
  const finished = run.requests.finishedAt[req]!;
  let t = Math.ceil(finished * 1000) / 1000;
  if (t < finished) t += 0.001;
  return { req, t };
}

/** The story's facts about one request, from the run's columns and the request's response and events. */
/** Tokens the phase's first prefill node holds, its reserved page 0 left out (as the engine counts a pool). */
function prefillPoolTokens(phase: { nodes: readonly { kind: string; pageCount: number }[]; pageSize: number }): number {
  const prefill = phase.nodes.find((n) => n.kind === 'prefill');
  return prefill ? (prefill.pageCount - 1) * phase.pageSize : 0;
}

export function storyFactsOf(run: StoryRun, response: ResponseRecord, events: readonly EngineEvent[]): StoryFacts {
  const req = response.request;
  const r = run.requests;
  const phase = run.phases[r.phase[req]!];
  const check = events.find((e) => e.type === 'decode-check-failed');
  const retired = events.some((e) => e.type === 'prefill-retire');
  const reserve = events.find((e) => e.type === 'decode-reserve');
  const free = events.find((e) => e.type === 'decode-free');
  // The handoff's page counts, the moment's (one function for the stage, the Transfer view and the story).
  const { reserved: reservedPages, unwritten } = handoffCounts(events);
  const placeholder = response.computedTokens === 1 && response.promptTokens > 1;
  const leakIndex = run.leaks.findIndex((l) => l.request === req);
  let outcome: StoryOutcome;
  if (response.status === 200) {
    if (response.leakedFrom.length > 0) outcome = 'leaked';
    else if (response.correct === false) outcome = response.pagesReadZero > 0 && response.pagesReadStale === 0 ? 'cleared' : 'wrong';
    else outcome = 'served';
  } else if (response.status === 400 && response.rejectedBy !== null) outcome = 'rejected';
  else if (response.status === 500 && check) outcome = 'check-failed';
  else if (response.status === 500 && retired) outcome = 'retired';
  else outcome = 'other';
  return {
    request: req,
    id: r.ids[req] ?? response.id,
    tenant: response.tenant,
    outcome,
    overLimit: (r.flags[req]! & FLAG_OVER_LIMIT) !== 0,
    placeholder,
    status: response.status,
    sent: response.promptTokens,
    computed: response.computedTokens,
    reserved: response.pagesReserved,
    written: response.pagesWritten,
    staleRead: response.pagesReadStale,
    zeroRead: response.pagesReadZero,
    unwritten,
    firstUnwrittenBlock: unwritten.length > 0 ? reservedPages.indexOf(unwritten[0]!) : -1,
    leakedFrom: response.leakedFrom,
    rejectedBy: response.rejectedBy,
    check: check?.type === 'decode-check-failed' ? check.check : null,
    poolRule: reserve?.type === 'decode-reserve' && reserve.cleared ? 'allocate' : free?.type === 'decode-free' ? (free.cleared ? 'free' : 'none') : null,
    prefillLimit: phase?.prefillLimit ?? 0,
    reportCapacity: phase !== undefined && prefillPoolTokens(phase) === INCIDENT_CONFIG.prefillCapacityTokens,
    pageSize: phase?.pageSize ?? 0,
    arrivedAt: r.arrivedAt[req]!,
    finishedAt: r.finishedAt[req]!,
    leakRank: leakIndex + 1,
    leakTotal: run.leaks.length,
    outputTokens: response.tokens.length,
  };
}

/** Where the request stands at an instant: not arrived yet, in flight, or answered (its response sent). */
export type StoryPhase = 'before' | 'in-flight' | 'answered';

export function storyPhaseAt(f: Pick<StoryFacts, 'arrivedAt' | 'finishedAt'>, t: number): StoryPhase {
  // The same rule as leaksSentBy: answered at the instant its answer went out.
  return t >= f.finishedAt ? 'answered' : t >= f.arrivedAt ? 'in-flight' : 'before';
}

export interface Message {
  key: MessageKey;
  vars: Record<string, string>;
}

export interface StoryText {
  /** The screen's headline. */
  headline: Message;
  /** sent · computed · reserved · status, formatted. */
  numbers: { sent: string; computed: string; reserved: string; status: string };
  /** Where the request stands at the instant. */
  when: Message;
  /** The line above the answer's tokens, or the sentence that says it got none. */
  who: Message;
  /** The mechanism, glossed words and the capacity fact's badge ({f14}) left as placeholders. */
  explain: Message;
  /** The gloss of {pages}: what the deployment does to a freed page, as far as this handoff shows. */
  pagesGloss: MessageKey;
}

const CHECK_NAME: Record<NonNullable<StoryFacts['check']>, MessageKey> = {
  'transferred-length': 'storyCheckLength',
  'per-read-integrity': 'storyCheckIntegrity',
};

const REJECTED_TITLE: Record<NonNullable<StoryFacts['rejectedBy']>, MessageKey> = {
  tokenizer: 'storyTitleRejectedTokenizer',
  admission: 'storyTitleRejectedAdmission',
  'decode-admission': 'storyTitleRejectedDecode',
};

const REJECTED_EXPLAIN: Record<NonNullable<StoryFacts['rejectedBy']>, MessageKey> = {
  tokenizer: 'storyExplainRejectedTokenizer',
  admission: 'storyExplainRejectedAdmission',
  'decode-admission': 'storyExplainRejectedDecode',
};

/** Everything the story says about its request at an instant, in catalogue keys and formatted values. */
export function storyText(f: StoryFacts, phase: StoryPhase, lang: Lang, startEpochMs: number, name: Translate): StoryText {
  const n = (x: number) => formatNumber(x, lang);
  const at = (ms: number) => formatUtc(startEpochMs + ms, lang);
  const status = String(f.status);
  const subject = f.overLimit ? name('storySubjectOver') : name('storySubject', { tokens: n(f.sent) });
  const numbers = { sent: n(f.sent), computed: n(f.computed), reserved: n(f.reserved), status };
  const common = { sent: n(f.sent), computed: n(f.computed), reserved: n(f.reserved), written: n(f.written), stale: n(f.staleRead), zero: n(f.zeroRead), status, limit: n(f.prefillLimit) };

  let headline: Message;
  let explain: Message;
  // The sentences that tell of the placeholder hold only where prefill computed one.
  const other: Message = { key: 'storyExplainOther', vars: common };
  switch (f.outcome) {
    case 'leaked':
      headline = f.placeholder ? { key: 'storyTitle', vars: {} } : { key: 'storyTitleLeak', vars: { subject } };
      explain = { key: f.placeholder ? 'storyExplainLeak' : 'storyExplainLeakAny', vars: common };
      break;
    case 'cleared':
      headline = { key: 'storyTitleCleared', vars: { subject } };
      explain = f.placeholder
        ? { key: 'storyExplainCleared', vars: { ...common, rule: name(f.poolRule === 'allocate' ? 'storyRuleAllocate' : f.poolRule === 'free' ? 'storyRuleFree' : 'storyRuleNever') } }
        : { key: 'storyExplainWrong', vars: common };
      break;
    case 'wrong':
      headline = { key: 'storyTitleWrong', vars: { subject } };
      explain = { key: 'storyExplainWrong', vars: common };
      break;
    case 'check-failed':
      headline = { key: 'storyTitleCheck', vars: { subject, check: name(CHECK_NAME[f.check!]), status } };
      explain = !f.placeholder
        ? other
        : f.check === 'transferred-length'
          ? { key: 'storyExplainCheckLength', vars: common }
          : { key: 'storyExplainCheckIntegrity', vars: { ...common, unwritten: n(f.unwritten.length), block: String(f.firstUnwrittenBlock), page: String(f.unwritten[0] ?? '?') } };
      break;
    case 'retired':
      headline = { key: 'storyTitleRetired', vars: { subject, status } };
      explain = f.placeholder ? { key: 'storyExplainRetired', vars: common } : other;
      break;
    case 'rejected': {
      const stage = f.rejectedBy ?? 'admission';
      headline = { key: f.reserved === 0 ? REJECTED_TITLE[stage] : 'storyTitleOther', vars: { subject, status } };
      explain = { key: REJECTED_EXPLAIN[stage], vars: common };
      break;
    }
    case 'served':
      headline = { key: 'storyTitleServed', vars: { subject } };
      explain = { key: 'storyExplainServed', vars: common };
      break;
    default:
      headline = { key: 'storyTitleOther', vars: { subject, status } };
      explain = other;
  }

  const times = { arrived: at(f.arrivedAt), finished: at(f.finishedAt), status };
  const when: Message =
    phase === 'before'
      ? { key: 'storyWhenBefore', vars: times }
      : phase === 'in-flight'
        ? { key: 'storyWhenInFlight', vars: times }
        : f.leakRank > 0
          ? { key: 'storyWhenSentLeak', vars: { ...times, rank: n(f.leakRank), total: n(f.leakTotal) } }
          : { key: 'storyWhenSent', vars: times };
  const who: Message =
    f.outputTokens === 0
      ? { key: 'storyNoText', vars: { request: f.id, tenant: f.tenant, status } }
      : { key: phase === 'answered' ? 'storyWho' : 'storyWhoPending', vars: { request: f.id, tenant: f.tenant } };
  const pagesGloss: MessageKey = f.poolRule === 'free' ? 'glossPageClearedOnFree' : f.poolRule === 'allocate' ? 'glossPageZeroedOnAllocate' : f.poolRule === 'none' ? 'glossPage' : 'glossPageSlots';
  return { headline, numbers, when, who, explain, pagesGloss };
}

/**
 * A run whose deployment the capacity check refused serves nothing: the story says so, with the two
 * sizes the refusal names (read back by engineText; shown as it came when they cannot be read).
 */
export function refusedStoryText(refused: string, lang: Lang, name: Translate): { headline: Message; explain: Message } {
  return { headline: { key: 'storyTitleRefused', vars: {} }, explain: { key: 'storyExplainRefused', vars: { detail: describeDeploymentRefused(refused, name, lang) ?? refused } } };
}

/** The counter's rule, the moment's (moment/moment.ts): the story's "sent" uses it too. */
export { leaksSentBy } from '../../moment/moment.ts';
