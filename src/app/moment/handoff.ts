/**
 * The handoff clock: one request's steps played at a pace chosen for a viewer, not the engine's.
 *
 * On the incident's clock a handoff lasts about 2 ms and several of its steps share one instant, so
 * nothing can be seen moving. The handoff clock gives every step of the one step list
 * (`stageSteps`, from the request's engine events) a duration in seconds of its own, eased in and
 * out, and maps each moment back to the engine's time for the pools. Two ways to a position:
 * - from the handoff clock (seconds since the request arrived, as a viewer watches it);
 * - from the incident's instant (the main scrubber), where the handoff clock is not running.
 * Both give (step, progress, engine time); the stage is a pure function of that, so playing,
 * scrubbing, stepping back and a rendered video frame agree.
 */
import type { EngineEvent } from '../../engine/index.ts';
import { stageSteps, stepIndexAt, type StageStep, type StageStepId } from './stageFrame.ts';

/** Seconds a viewer is given for each step (the token stream: per token, within bounds). */
const STEP_SECONDS: Record<StageStepId, number> = {
  arrive: 1.6,
  tokenizer: 1.6,
  reject: 2.6,
  abort: 3.2,
  route: 1.6,
  'decode-wait': 1.6,
  reserve: 3.6,
  'prefill-wait': 1.6,
  'prefill-alloc': 1.8,
  compute: 2.8,
  transfer: 2.0,
  'prefill-free': 1.2,
  done: 2.8,
  'check-failed': 2.6,
  scan: 3.6,
  stream: 0,
  response: 2.0,
  free: 2.2,
  reuse: 3.6,
};
const STREAM_SECONDS_PER_TOKEN = 0.4;
/** The share of the reuse step by which its engine time reaches the later reservation. */
const REUSE_CLAIM_AT = 0.75;
const STREAM_MIN_SECONDS = 3;
const STREAM_MAX_SECONDS = 12;

export { HANDOFF_SPEEDS } from '../state/handoffSpeeds.ts';

export interface HandoffStep extends StageStep {
  /** Seconds on the handoff clock: the step is on for at ≤ h < at + dur. */
  at: number;
  dur: number;
}

export interface HandoffScript {
  steps: HandoffStep[];
  /** Seconds from the arrival to the end of the last step. */
  total: number;
}

/** Seconds the token stream is given for `tokens` tokens. */
export function streamSeconds(tokens: number): number {
  return Math.min(STREAM_MAX_SECONDS, Math.max(STREAM_MIN_SECONDS, tokens * STREAM_SECONDS_PER_TOKEN));
}

/** The one step list of a request's handoff (the stage, the Transfer view and the walkthrough use it), timed for a viewer. */
export function handoffScript(events: readonly EngineEvent[], tokenCount: number): HandoffScript {
  const steps: HandoffStep[] = [];
  let at = 0;
  for (const s of stageSteps(events)) {
    const dur = s.id === 'stream' ? streamSeconds(tokenCount) : STEP_SECONDS[s.id];
    steps.push({ ...s, at, dur });
    at += dur;
  }
  return { steps, total: at };
}

/** Ease in and out (smoothstep): a step starts and ends at rest. */
export function ease(p: number): number {
  const x = p < 0 ? 0 : p > 1 ? 1 : p;
  return x * x * (3 - 2 * x);
}

export interface HandoffPosition {
  /** The step on (−1: before the request arrives) and how far into it (0…1, eased on the handoff clock). */
  index: number;
  progress: number;
  /** Seconds on the handoff clock. */
  h: number;
  /** Simulated ms whose pools the picture shows. */
  engineT: number;
}

/** The engine's interval of a step, bounded where it is open-ended (the last steps, reuse). */
function engineSpan(script: HandoffScript, index: number, reuseUntil: number | null): [number, number] {
  const s = script.steps[index]!;
  if (s.end !== Infinity) return [s.start, s.end];
  if (s.id === 'reuse' && reuseUntil !== null && reuseUntil > s.start) return [s.start, reuseUntil];
  return [s.start, s.start];
}

/**
 * Where the handoff clock at `h` seconds is. `reuseUntil` is the simulated ms by which a later
 * reservation has claimed pages of the freed block table (the reuse step plays up to it).
 */
export function positionAtHandoff(script: HandoffScript, h: number, o: { reducedMotion?: boolean; reuseUntil?: number | null } = {}): HandoffPosition {
  const steps = script.steps;
  if (steps.length === 0 || h < 0) return { index: -1, progress: 0, h, engineT: steps[0] ? steps[0].start - 1 : 0 };
  let index = steps.length - 1;
  for (let i = 0; i < steps.length; i++) {
    if (h < steps[i]!.at + steps[i]!.dur) {
      index = i;
      break;
    }
  }
  const s = steps[index]!;
  const linear = s.dur > 0 ? Math.min(1, Math.max(0, (h - s.at) / s.dur)) : 1;
  // The token stream keeps an even pace (each token's own flight eases); every other step eases.
  const progress = o.reducedMotion ? 1 : s.id === 'stream' ? linear : ease(linear);
  const [from, to] = engineSpan(script, index, o.reuseUntil ?? null);
  // The reuse step reaches the later reservation at three quarters of its time, so its last quarter
  // (where stepping lands) shows the pages held again and by whom, not the instant before.
  const share = s.id === 'reuse' ? Math.min(1, progress / REUSE_CLAIM_AT) : progress;
  return { index, progress, h, engineT: from + (to - from) * share };
}

/** Where the incident's instant `t` (simulated ms) falls in the handoff (the handoff clock not running). */
export function positionAtInstant(script: HandoffScript, t: number, o: { reducedMotion?: boolean } = {}): HandoffPosition {
  const index = stepIndexAt(script.steps, t);
  if (index < 0) return { index: -1, progress: 0, h: -1, engineT: t };
  const s = script.steps[index]!;
  const linear = s.end === Infinity ? 1 : s.end > s.start ? Math.min(1, Math.max(0, (t - s.start) / (s.end - s.start))) : 1;
  const progress = o.reducedMotion ? 1 : linear;
  return { index, progress, h: s.at + s.dur * linear, engineT: t };
}

/** Seconds on the handoff clock at `into` (0…1) of the first step `id`, or null when the handoff has none. */
export function handoffTimeOf(script: HandoffScript, id: StageStepId, into = 0): number | null {
  const s = script.steps.find((x) => x.id === id);
  return s ? s.at + s.dur * Math.min(1, Math.max(0, into)) : null;
}

/** The step index on at `h` seconds (−1 before the arrival). */
export function stepAtHandoff(script: HandoffScript, h: number): number {
  return positionAtHandoff(script, h).index;
}

/**
 * The moment a step shows its end state on the handoff clock (a hundredth of a second before the next
 * step starts, the URL's precision): where stepping lands.
 */
export function stepEnd(s: HandoffStep): number {
  return Math.max(s.at, s.at + s.dur - 0.01);
}
