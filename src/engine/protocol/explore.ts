/**
 * Breadth-first explicit-state exploration of the handoff model. Breadth-first, so the first
 * violation found for a property is a shortest one. Exploration always runs to the end of the
 * reachable space (or the state cap): the counts are then a property of the model alone, and every
 * property gets a verdict, not just the first one to fail.
 */
import {
  NONE,
  contentLabel,
  deploymentRefused,
  encodeState,
  initialState,
  requestLabel,
  successors,
  type ProtocolConfig,
  type ProtocolState,
  type ReadObservation,
  type TransitionKind,
} from './model.ts';

import type { PropertyId } from '../protocolVocabulary.ts';

export type { PropertyId };

export const PROPERTIES: readonly PropertyId[] = ['confidentiality', 'integrity', 'exclusiveOwnership'];

export const PROPERTY_TEXT: Record<PropertyId, string> = {
  confidentiality: 'a response draws only on KV written for its own request in this handoff, or on zeros — never on another request\'s KV',
  integrity: 'a request answered 200 read only pages fully written for it in this handoff',
  exclusiveOwnership: 'no page is in the block table of two live requests at once',
};

export interface Step {
  kind: TransitionKind;
  request: number;
  label: string;
  /** The state after this step. */
  state: ProtocolState;
  read?: ReadObservation;
  /** Set on the step that breaks the property. */
  violation?: string;
}

export interface Counterexample {
  property: PropertyId;
  /** Number of transitions; minimal over all paths that break the property. */
  length: number;
  initial: ProtocolState;
  steps: Step[];
}

export interface PropertyVerdict {
  property: PropertyId;
  holds: boolean;
  counterexample: Counterexample | null;
}

export interface ExplorationResult {
  configId: string;
  statesExplored: number;
  transitions: number;
  /** Length of the longest shortest path to a reachable state. */
  depth: number;
  /** States where nothing can happen and every request has an answer. */
  finalStates: number;
  /** States where nothing can happen but some request never got an answer (a hang). */
  stuckStates: number;
  /** False when the state cap stopped the search: the verdicts then cover only what was seen. */
  complete: boolean;
  deploymentRefused: boolean;
  verdicts: Record<PropertyId, PropertyVerdict>;
  elapsedMs?: number;
}

export interface ExploreOptions {
  maxStates?: number;
}

/** One part of a page a read drew on: the whole page, or its stale slots past the head. */
export interface ReadPart {
  page: number;
  staleSlots: boolean;
  /** The request whose KV the part holds (NONE: never written). */
  writer: number;
}

/**
 * What a read observation shows, structured: the parts written for another request (confidentiality)
 * and the parts not written for the reader (integrity). judgeRead words it for the CLI; the page words
 * the same findings in its language (views/verify/stepText.ts).
 */
export function readFindings(read: ReadObservation): { foreign: ReadPart[]; unwritten: ReadPart[] } {
  const foreign: ReadPart[] = [];
  const unwritten: ReadPart[] = [];
  for (const p of read.pages) {
    const parts: ReadPart[] = p.head === p.tail ? [{ page: p.page, staleSlots: false, writer: p.head }] : [{ page: p.page, staleSlots: false, writer: p.head }, { page: p.page, staleSlots: true, writer: p.tail }];
    for (const part of parts) {
      if (part.writer !== read.request) unwritten.push(part);
      if (part.writer !== NONE && part.writer !== read.request) foreign.push(part);
    }
  }
  return { foreign, unwritten };
}

/** Violations a read observation shows, per property. */
export function judgeRead(c: ProtocolConfig, read: ReadObservation): Partial<Record<PropertyId, string>> {
  const out: Partial<Record<PropertyId, string>> = {};
  const who = requestLabel(c, read.request);
  const { foreign, unwritten } = readFindings(read);
  const name = (p: ReadPart) => `d${p.page}${p.staleSlots ? ' (stale slots)' : ''}`;
  if (foreign.length > 0) out.confidentiality = `${who}'s 200 response drew on another request's KV — ${foreign.map((p) => `${name(p)}: ${contentLabel(c, p.writer)}`).join('; ')}`;
  if (unwritten.length > 0) out.integrity = `${who} was answered 200 over memory not written for it in this handoff: ${unwritten.map(name).join(', ')}`;
  return out;
}

/** The first page two live requests name at once, on either node (`d3`, `p1`), with the two requests; null when none. */
export function ownershipClash(s: ProtocolState): { page: string; a: number; b: number } | null {
  const seen = new Map<string, number>();
  for (let r = 0; r < s.reqs.length; r++) {
    const req = s.reqs[r]!;
    const pages: string[] = [];
    if (req.decode === 'reserved' || req.decode === 'aborting') pages.push(...req.dst.map((p) => `d${p}`));
    if (req.prefill === 'computing') pages.push(...req.src.map((p) => `p${p}`));
    for (const p of pages) {
      const other = seen.get(p);
      if (other !== undefined && other !== r) return { page: p, a: other, b: r };
      seen.set(p, r);
    }
  }
  return null;
}

/** Two live requests naming the same page, on either node. */
export function judgeState(c: ProtocolConfig, s: ProtocolState): string | null {
  const clash = ownershipClash(s);
  return clash ? `${clash.page} is in the block tables of both ${requestLabel(c, clash.a)} and ${requestLabel(c, clash.b)}` : null;
}

function finished(s: ProtocolState): boolean {
  return s.reqs.every((r) => r.status !== 0 && r.done === 'none' && !r.abortNotice && !r.ack);
}

export function explore(c: ProtocolConfig, options: ExploreOptions = {}): ExplorationResult {
  const maxStates = options.maxStates ?? 2_000_000;
  const init = initialState(c);
  const index = new Map<string, number>();
  // parent[i] and via[i]: the state state i was first reached from, and which of its successors.
  const parent: number[] = [-1];
  const via: number[] = [-1];
  const depthOf: number[] = [0];
  index.set(encodeState(init), 0);
  const queue: (ProtocolState | undefined)[] = [init];
  const found: Partial<Record<PropertyId, { state: number; via: number; message: string }>> = {};
  let transitions = 0;
  let finalStates = 0;
  let stuckStates = 0;
  let complete = true;

  const ownership = judgeState(c, init);
  if (ownership) found.exclusiveOwnership = { state: 0, via: -1, message: ownership };

  for (let i = 0; i < queue.length; i++) {
    const s = queue[i]!;
    queue[i] = undefined;
    const next = successors(c, s);
    if (next.length === 0) {
      if (finished(s)) finalStates++;
      else stuckStates++;
    }
    for (let k = 0; k < next.length; k++) {
      const t = next[k]!;
      transitions++;
      if (t.read) {
        const v = judgeRead(c, t.read);
        for (const p of ['confidentiality', 'integrity'] as const) {
          const message = v[p];
          if (message && !found[p]) found[p] = { state: i, via: k, message };
        }
      }
      const key = encodeState(t.next);
      if (index.has(key)) continue;
      if (queue.length >= maxStates) {
        complete = false;
        continue;
      }
      const id = queue.length;
      index.set(key, id);
      parent.push(i);
      via.push(k);
      depthOf.push(depthOf[i]! + 1);
      queue.push(t.next);
      if (!found.exclusiveOwnership) {
        const message = judgeState(c, t.next);
        if (message) found.exclusiveOwnership = { state: id, via: -1, message };
      }
    }
  }

  const verdicts = {} as Record<PropertyId, PropertyVerdict>;
  for (const p of PROPERTIES) {
    const f = found[p];
    verdicts[p] = {
      property: p,
      holds: !f,
      counterexample: f ? buildCounterexample(c, p, pathTo(parent, via, f.state, f.via), f.message) : null,
    };
  }
  let depth = 0;
  for (const d of depthOf) if (d > depth) depth = d;
  return {
    configId: c.id,
    statesExplored: queue.length,
    transitions,
    depth,
    finalStates,
    stuckStates,
    complete,
    deploymentRefused: deploymentRefused(c),
    verdicts,
  };
}

/** Successor indices from the initial state to `state`, then `last` if it names a transition. */
function pathTo(parent: number[], via: number[], state: number, last: number): number[] {
  const choices: number[] = [];
  for (let s = state; s > 0; s = parent[s]!) choices.push(via[s]!);
  choices.reverse();
  if (last >= 0) choices.push(last);
  return choices;
}

/** Replays a path of successor indices; the successor order is deterministic, so this is exact. */
export function replay(c: ProtocolConfig, choices: number[]): { initial: ProtocolState; steps: Step[] } {
  const initial = initialState(c);
  const steps: Step[] = [];
  let s = initial;
  for (const k of choices) {
    const t = successors(c, s)[k];
    if (!t) throw new Error(`replay: no successor ${k} after ${steps.length} steps`);
    const step: Step = { kind: t.kind, request: t.request, label: t.label, state: t.next };
    if (t.read) step.read = t.read;
    steps.push(step);
    s = t.next;
  }
  return { initial, steps };
}

function buildCounterexample(c: ProtocolConfig, property: PropertyId, choices: number[], message: string): Counterexample {
  const { initial, steps } = replay(c, choices);
  const last = steps[steps.length - 1];
  if (last) last.violation = message;
  return { property, length: steps.length, initial, steps };
}

/** Whether a configuration is safe: every property holds over the whole reachable space. */
export function isSafe(r: ExplorationResult): boolean {
  return r.complete && PROPERTIES.every((p) => r.verdicts[p].holds);
}
