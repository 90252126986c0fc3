/**
 * The explainer video as data: which scene, which step state, which spoken cue, at every frame.
 *
 * `scriptOf` turns the walkthrough's chapters into what is said (the title, each chapter's title,
 * every step caption, the checkpoint's question and answer, the end card), split into cues short
 * enough to read. The recorder speaks every cue (espeak-ng) and measures it; `timelineOf` then lays
 * the frames out from those real durations: a cue stays up at least as long as it is spoken and
 * long enough to be read at 16 characters a second, the chapter's waits stretch or shrink to fit
 * what is said over them (tweens keep their length), and a checkpoint becomes a predict beat of
 * 6–8 s, its answer said over the tween that follows it, if one does. Every time is a whole frame, so the video, its captions and its chapter marks agree.
 *
 * Pure: no DOM, no Node. The page (render/driver.ts) and the recorder (scripts/record.ts) both use it.
 */
import type { Chapter } from '../walkthrough/chapters/chapter.ts';
import type { Step } from '../walkthrough/chapters/steps.ts';
import { pick } from '../i18n/text.ts';
import { videoSteps } from './directions.ts';
import { revealSteps } from '../walkthrough/reveal.ts';
import type { Language } from '../state/store.ts';

export const FPS = 30;
/** Reading speed a cue is held to (characters per second); the test checks ≤ 17. */
export const READ_CPS = 16;
/** A cue longer than this is split at a sentence or clause boundary. */
export const MAX_CUE_CHARS = 84;
export const PREDICT_MIN_MS = 6000;
export const PREDICT_MAX_MS = 8000;
/** A moving beat starts at most this long after the sentence that names it begins (the 0.3 s). */
export const MOTION_LEAD_MAX_MS = 300;

export type CueKind = 'title' | 'chapter' | 'caption' | 'question' | 'answer' | 'end';

/** One thing said and shown: its text on screen is the text spoken. */
export interface ScriptCue {
  key: string;
  kind: CueKind;
  text: string;
}

export interface ChapterScript {
  n: number;
  id: string;
  title: string;
  /** The card's cue, then, per step index, the cues a caption step (or checkpoint) says. */
  card: ScriptCue;
  stepCues: Record<number, ScriptCue[]>;
  answer: ScriptCue[];
}

export interface Script {
  lang: Language;
  title: ScriptCue[];
  chapters: ChapterScript[];
  end: ScriptCue[];
}

/** The texts the end card says and shows, from the facts file (with their ids). */
export interface EndFacts {
  heading: string;
  fixes: { id: string; text: string }[];
}

export interface TitleText {
  title: string;
  subtitle: string;
}

/**
 * Splits a text into cues of at most `max` characters: at sentence ends first, then at « : ; , »
 * and dashes, then between words. Never mid-word.
 */
export function splitCue(text: string, max = MAX_CUE_CHARS): string[] {
  const t = text.trim();
  if (t.length <= max) return [t];
  for (const re of [/(?<=[.!?…])\s+/u, /(?<=[:;])\s+/u, /(?<=,)\s+|\s+(?=[—–]\s)/u]) {
    const parts = t.split(re).filter((p) => p.length > 0);
    if (parts.length < 2) continue;
    // Greedy: join neighbours while they fit, so cues are as long as they may be.
    const out: string[] = [];
    for (const p of parts) {
      const last = out[out.length - 1];
      if (last !== undefined && last.length + 1 + p.length <= max) out[out.length - 1] = `${last} ${p}`;
      else out.push(p);
    }
    return out.flatMap((p) => splitCue(p, max));
  }
  // Between words: as many cues as the length needs, each break at the space nearest its share of
  // the text, so the pieces are balanced (never a lone last word held on screen by itself).
  const n = Math.ceil(t.length / max);
  const spaces = [...t.matchAll(/\s+/gu)].map((m) => m.index);
  const out: string[] = [];
  let from = 0;
  for (let k = 1; k < n; k++) {
    const ideal = (t.length * k) / n;
    let best = -1;
    for (const sp of spaces) if (sp > from && (best < 0 || Math.abs(sp - ideal) < Math.abs(best - ideal))) best = sp;
    if (best < 0) break;
    out.push(t.slice(from, best).trim());
    from = best;
  }
  out.push(t.slice(from).trim());
  return out.filter((p) => p.length > 0).flatMap((p) => (p.length > max && p.length < t.length && /\s/u.test(p) ? splitCue(p, max) : [p]));
}

function cuesOf(key: string, kind: CueKind, text: string): ScriptCue[] {
  return splitCue(text).map((part, i) => ({ key: `${key}.${i}`, kind, text: part }));
}

const L = (x: { en: string; fr: string }, lang: Language) => pick(lang, x.en, x.fr);

/** What the video says, chapter by chapter, in one language. */
export function scriptOf(chapters: readonly { n: number; chapter: Chapter }[], lang: Language, words: { chapter: string; predict: string; answer: string }, title: TitleText | null, end: EndFacts | null): Script {
  return {
    lang,
    title: title ? [...cuesOf('title', 'title', title.title), ...cuesOf('title.sub', 'title', title.subtitle)] : [],
    chapters: chapters.map(({ n, chapter }) => {
      const stepCues: Record<number, ScriptCue[]> = {};
      videoSteps(chapter).forEach((s, i) => {
        if ('caption' in s) stepCues[i] = cuesOf(`ch${n}.s${i}`, 'caption', L(s.caption, lang));
        else if ('checkpoint' in s && chapter.checkpoint) stepCues[i] = cuesOf(`ch${n}.q`, 'question', `${words.predict} ${L(chapter.checkpoint.question, lang)}`);
      });
      const title = L(chapter.title, lang);
      return {
        n,
        id: chapter.id,
        title,
        card: { key: `ch${n}.title`, kind: 'chapter', text: `${words.chapter.replace('{n}', String(n))}. ${title}` },
        stepCues,
        answer: chapter.checkpoint ? cuesOf(`ch${n}.a`, 'answer', `${words.answer} ${L(chapter.checkpoint.explain, lang)}`) : [],
      };
    }),
    end: end ? [...cuesOf('end', 'end', end.heading), ...end.fixes.flatMap((f, i) => cuesOf(`end.${f.id}.${i}`, 'end', f.text))] : [],
  };
}

/** Every cue of a script, in the order it is said. */
export function allCues(script: Script): ScriptCue[] {
  return [...script.title, ...script.chapters.flatMap((c) => [c.card, ...Object.keys(c.stepCues).sort((a, b) => Number(a) - Number(b)).flatMap((k) => [...c.stepCues[Number(k)]!, ...(c.stepCues[Number(k)]![0]!.kind === 'question' ? c.answer : [])])]), ...script.end];
}

// ---------------------------------------------------------------------------------------------
// The timeline: frames.

export interface TimedCue {
  key: string;
  kind: CueKind;
  text: string;
  /** First frame shown, first frame no longer shown. */
  from: number;
  to: number;
  /** Frames the narration of this cue lasts (from `from`). */
  spoken: number;
}

/** A step of a chapter placed in frames: instant steps at `at`, tweens from `at` over `frames`. */
export type TimedStep = { at: number; index: number; step: Step; frames: number };

export type Scene =
  | { kind: 'title'; from: number; to: number }
  | { kind: 'card'; chapter: number; from: number; to: number }
  | { kind: 'body'; chapter: number; from: number; to: number; steps: TimedStep[] }
  | { kind: 'end'; from: number; to: number };

/**
 * A predict beat: the question is asked from `askFrom`, the countdown runs from `from` (the marked
 * beat, 6–8 s), the answer is revealed at `to` and said until `answerTo`.
 */
export interface Beat {
  chapter: number;
  askFrom: number;
  from: number;
  to: number;
  answerTo: number;
}

export interface ChapterMark {
  n: number;
  id: string;
  title: string;
  from: number;
  to: number;
}

export interface Timeline {
  lang: Language;
  fps: number;
  frames: number;
  scenes: Scene[];
  cues: TimedCue[];
  beats: Beat[];
  chapters: ChapterMark[];
}

const framesOf = (ms: number) => Math.max(1, Math.ceil((ms * FPS) / 1000 - 1e-9));

/** How long a cue stays up: its narration and a breath, or its reading time, whichever is longer. */
export function cueFrames(cue: ScriptCue, spokenMs: number): number {
  return framesOf(Math.max(spokenMs + 350, (cue.text.length / READ_CPS) * 1000, 1200));
}

export interface TimelineOptions {
  /** Narration length of each cue, by key (ms). */
  spokenMs: Readonly<Record<string, number>>;
  /** Scale for every wait (tests use short ones); tweens and cues keep their length. */
  waitScale?: number;
}

/**
 * Lays a script out in frames. A caption's block runs from its caption to the next caption (or the
 * checkpoint, or the chapter's end): it lasts as long as its cues are up, or its tweens, whichever
 * is longer, and its waits share what is left in proportion to their written lengths.
 */
export function timelineOf(script: Script, chapters: readonly Chapter[], opts: TimelineOptions): Timeline {
  const spoken = (c: ScriptCue) => opts.spokenMs[c.key] ?? 0;
  const scenes: Scene[] = [];
  const cues: TimedCue[] = [];
  const beats: Beat[] = [];
  const marks: ChapterMark[] = [];
  let at = 0;
  const say = (list: ScriptCue[], from: number): number => {
    let t = from;
    for (const c of list) {
      const d = cueFrames(c, spoken(c));
      cues.push({ key: c.key, kind: c.kind, text: c.text, from: t, to: t + d, spoken: framesOf(spoken(c)) });
      t += d;
    }
    return t;
  };

  if (script.title.length) {
    const end = say(script.title, at) + framesOf(600);
    scenes.push({ kind: 'title', from: at, to: end });
    at = end;
  }

  for (const [ci, cs] of script.chapters.entries()) {
    const chapter = chapters[ci]!;
    const markFrom = at;
    const cardEnd = Math.max(say([cs.card], at), at + framesOf(2200));
    scenes.push({ kind: 'card', chapter: cs.n, from: at, to: cardEnd });
    at = cardEnd;

    const bodyFrom = at;
    const steps: TimedStep[] = [];
    const list = videoSteps(chapter);
    let i = 0;
    // Steps before the first caption run at the body's start (and their waits, scaled, as written).
    const scale = opts.waitScale ?? 1;
    while (i < list.length) {
      const s = list[i]!;
      const cueList = cs.stepCues[i];
      if ('checkpoint' in s) {
        // The question is said (the panel up), then the predict beat: a countdown of 6–8 s with
        // the question still on screen; then the answer is said.
        const q = cueList ?? [];
        const qFrom = at;
        const qEnd = say(q, at);
        const beatLen = Math.max(framesOf(PREDICT_MIN_MS), Math.min(framesOf(PREDICT_MAX_MS), framesOf(3000) + Math.round((qEnd - qFrom) / 2)));
        const beatEnd = qEnd + beatLen;
        // The question's last cue stays up until the reveal.
        if (q.length) cues[cues.length - 1]!.to = beatEnd;
        steps.push({ at: qFrom, index: i, step: s, frames: beatEnd - qFrom });
        // The answer is said over what it describes: the instant steps right after the checkpoint
        // (a switch set, a highlight) take effect at the reveal, not after the answer.
        const reveal = revealSteps(list, i + 1);
        for (const [k, step] of reveal.steps.entries()) steps.push({ at: beatEnd, index: i + 1 + k, step, frames: 0 });
        i = reveal.next;
        // A tween right after the reveal plays while the answer is said: the answer is about it.
        let motion = 0;
        const next = list[i];
        if (next && 'tween' in next) {
          motion = framesOf(next.tween.ms);
          steps.push({ at: beatEnd, index: i, step: next, frames: motion });
          i++;
        }
        at = Math.max(say(cs.answer, beatEnd), beatEnd + motion);
        beats.push({ chapter: cs.n, askFrom: qFrom, from: qEnd, to: beatEnd, answerTo: at });
        continue;
      }
      if (!('caption' in s)) {
        if ('wait' in s) {
          const f = framesOf(s.wait * scale);
          steps.push({ at, index: i, step: s, frames: f });
          at += f;
        } else if ('tween' in s) {
          const f = framesOf(s.tween.ms);
          steps.push({ at, index: i, step: s, frames: f });
          at += f;
        } else steps.push({ at, index: i, step: s, frames: 0 });
        i++;
        continue;
      }
      // A caption block: this caption up to the next caption or checkpoint.
      let j = i + 1;
      while (j < list.length && !('caption' in list[j]!) && !('checkpoint' in list[j]!)) j++;
      const block = list.slice(i, j);
      const tweenFrames = block.reduce((n, b) => n + ('tween' in b ? framesOf(b.tween.ms) : 0), 0);
      const waitMs = block.reduce((n, b) => n + ('wait' in b ? b.wait : 0), 0);
      const cueStart = at;
      const cueEnd = say(cueList ?? [], at);
      const length = Math.max(cueEnd - cueStart, tweenFrames + framesOf(waitMs * scale * (j === list.length ? 0.5 : 0.25)), 1);
      let waitBudget = Math.max(0, length - tweenFrames);
      let waitsLeft = waitMs;
      for (const [k, b] of block.entries()) {
        const index = i + k;
        if ('wait' in b) {
          const f = waitsLeft > 0 ? Math.round((waitBudget * b.wait) / waitsLeft) : 0;
          waitBudget -= f;
          waitsLeft -= b.wait;
          steps.push({ at, index, step: b, frames: f });
          at += f;
        } else if ('tween' in b) {
          const f = framesOf(b.tween.ms);
          steps.push({ at, index, step: b, frames: f });
          at += f;
        } else steps.push({ at, index, step: b, frames: 0 });
      }
      // No waits to take up the narration: hold at the end of the block.
      if (waitBudget > 0) at += waitBudget;
      at = Math.max(at, cueStart + length);
      // The block's cue stays up to the block's end (never past the next cue).
      if (cueList?.length) cues[cues.length - 1]!.to = Math.max(cues[cues.length - 1]!.to, at);
      i = j;
    }
    scenes.push({ kind: 'body', chapter: cs.n, from: bodyFrom, to: at, steps });
    marks.push({ n: cs.n, id: cs.id, title: cs.title, from: markFrom, to: at });
  }

  if (script.end.length) {
    const end = say(script.end, at) + framesOf(2500);
    scenes.push({ kind: 'end', from: at, to: end });
    at = end;
  }
  // One cue at a time: a cue ends where the next begins.
  cues.sort((a, b) => a.from - b.from);
  for (let k = 0; k + 1 < cues.length; k++) cues[k]!.to = Math.min(cues[k]!.to, cues[k + 1]!.from);
  return { lang: script.lang, fps: FPS, frames: at, scenes, cues, beats, chapters: marks };
}

/**
 * Every moving beat of the chapters (a tween) with how long after the latest cue's start it begins,
 * in seconds: the recorder writes these beside the chapter marks, and `record:measure` prints them.
 */
export function motionLeads(tl: Timeline): { chapter: number; step: number; atS: number; leadS: number; cue: string }[] {
  const out: { chapter: number; step: number; atS: number; leadS: number; cue: string }[] = [];
  for (const scene of tl.scenes) {
    if (scene.kind !== 'body') continue;
    for (const s of scene.steps) {
      if (!('tween' in s.step) || s.frames === 0) continue;
      const cue = tl.cues.filter((c) => c.from <= s.at).pop();
      if (!cue) continue;
      out.push({ chapter: scene.chapter, step: s.index, atS: s.at / tl.fps, leadS: (s.at - cue.from) / tl.fps, cue: cue.text });
    }
  }
  return out;
}

export function sceneAt(tl: Timeline, frame: number): Scene {
  return tl.scenes.find((s) => frame >= s.from && frame < s.to) ?? tl.scenes[tl.scenes.length - 1]!;
}

export function cueAt(tl: Timeline, frame: number): TimedCue | null {
  return tl.cues.find((c) => frame >= c.from && frame < c.to) ?? null;
}

/** The predict beat whose question, countdown or answer is on screen at a frame. */
export function beatAt(tl: Timeline, frame: number): Beat | null {
  return tl.beats.find((b) => frame >= b.askFrom && frame < b.answerTo) ?? null;
}

/** Characters per second a cue is shown at (what captions are judged by). */
export function cueRate(c: TimedCue, fps = FPS): number {
  return c.text.length / ((c.to - c.from) / fps);
}
