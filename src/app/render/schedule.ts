/**
 * The explainer video as data: which scene, which step state, which spoken cue, at every frame.
 *
 * `scriptOf` turns the walkthrough's chapters into what is said (the title, each chapter's title,
 * every step caption, the checkpoint's question and answer, the end card), split into cues short
 * enough to read. The recorder speaks every cue and measures it; `timelineOf` then lays the one
 * schedule out in frames (walkthrough/timeline.ts: the talk's scenes, each chapter's beats with the
 * captions they bring up, the reveal, the card and predict lengths) from those real durations: a
 * cue stays up at least as long as it is spoken and long enough to be read at 16 characters a
 * second, the chapter's waits stretch or shrink to fit what is said over them (tweens keep their
 * length, but the last of a block with no waits stretches over what is said), and a checkpoint becomes a predict beat of 6–8 s, its answer said over the tween that
 * follows it, if one does. Every time is a whole frame, so the video, its captions and its chapter
 * marks agree. `positionAtFrame` reads a frame back as the schedule's beat and beat time, which the
 * driver samples with the walkthrough's own interpreter.
 *
 * Pure: no DOM, no Node. The page (render/driver.ts) and the recorder (scripts/record.ts) both use it.
 */
import type { Chapter } from '../walkthrough/chapters/chapter.ts';
import { shownTitle } from '../walkthrough/chapters/spoilers.ts';
import { pick } from '../i18n/text.ts';
import { videoSteps } from './directions.ts';
import { beatsOf, CARD_MIN_MS, FPS, framesOf, predictMs, readingMs, revealSteps, talkOf, type Beat as ChapterBeat, type BeatKind, type Position } from '../walkthrough/timeline.ts';
import type { Language } from '../state/store.ts';

export { FPS, PREDICT_MAX_MS, PREDICT_MIN_MS, READ_CPS } from '../walkthrough/timeline.ts';
/** A cue longer than this is split at a sentence or clause boundary. */
export const MAX_CUE_CHARS = 84;
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
      for (const b of beatsOf(videoSteps(chapter))) {
        for (const c of b.captions) stepCues[c.step] = cuesOf(`ch${n}.s${c.step}`, 'caption', L(c.caption, lang));
        if (b.kind === 'checkpoint' && chapter.checkpoint) stepCues[b.step] = cuesOf(`ch${n}.q`, 'question', `${words.predict} ${L(chapter.checkpoint.question, lang)}`);
      }
      // The name the chapter card shows (Screen.tsx), said by the narration and written in the chapter
      // files: a title that would answer the chapter's own question is its question-shaped form, in the
      // whole video (the questions before it are revealed by then).
      const title = L(shownTitle(n, (k) => k < n), lang);
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

/**
 * A beat of the chapter's schedule placed in frames: from `at` over `frames` (a wait stretched to
 * what is said over it; a tween its own length; a checkpoint from its question to its reveal).
 */
export interface TimedBeat {
  beat: number;
  kind: BeatKind;
  /** Its length live (walkthrough/timeline.ts): beat time runs 0…ms over its frames. */
  ms: number;
  at: number;
  frames: number;
}

export type Scene =
  | { kind: 'title'; from: number; to: number }
  | { kind: 'card'; chapter: number; from: number; to: number }
  /** `reveal`: the frame the question's answer is revealed at (null: no question). */
  | { kind: 'body'; chapter: number; from: number; to: number; beats: TimedBeat[]; reveal: number | null }
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

/** How long a cue stays up: its narration and a breath, or its reading time, whichever is longer. */
export function cueFrames(cue: ScriptCue, spokenMs: number): number {
  return framesOf(Math.max(spokenMs + 350, readingMs(cue.text)));
}

export interface TimelineOptions {
  /** Narration length of each cue, by key (ms). */
  spokenMs: Readonly<Record<string, number>>;
  /** Scale for every wait (tests use short ones); tweens and cues keep their length. */
  waitScale?: number;
}

/**
 * Lays a script out in frames over the talk's scenes and each chapter's beats. A caption's block
 * runs from the beat that brings its caption up to the next such beat (or the checkpoint, or the
 * chapter's end): it lasts as long as its cues are up, or its tweens, whichever is longer, and its
 * waits share what is left in proportion to their written lengths (with none, its last tween takes it). Beats before the first caption
 * play as written (waits scaled).
 */
export function timelineOf(script: Script, chapters: readonly Chapter[], opts: TimelineOptions): Timeline {
  const spoken = (c: ScriptCue) => opts.spokenMs[c.key] ?? 0;
  const scale = opts.waitScale ?? 1;
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
  const byNumber = new Map(script.chapters.map((cs, i) => [cs.n, { cs, chapter: chapters[i]! }]));
  let markFrom = 0;

  for (const scene of talkOf(script.chapters.map((c) => c.n), { title: script.title.length > 0, end: script.end.length > 0 })) {
    if (scene.kind === 'title') {
      const end = say(script.title, at) + framesOf(600);
      scenes.push({ kind: 'title', from: at, to: end });
      at = end;
    } else if (scene.kind === 'end') {
      const end = say(script.end, at) + framesOf(2500);
      scenes.push({ kind: 'end', from: at, to: end });
      at = end;
    } else if (scene.kind === 'card') {
      const { cs } = byNumber.get(scene.chapter)!;
      markFrom = at;
      const cardEnd = Math.max(say([cs.card], at), at + framesOf(CARD_MIN_MS));
      scenes.push({ kind: 'card', chapter: cs.n, from: at, to: cardEnd });
      at = cardEnd;
    } else {
      const { cs, chapter } = byNumber.get(scene.chapter)!;
      const steps = videoSteps(chapter);
      const list = beatsOf(steps);
      const bodyFrom = at;
      const timed: TimedBeat[] = [];
      let reveal: number | null = null;
      const place = (b: number, frames: number, from = at) => {
        const x = list[b]!;
        timed.push({ beat: b, kind: x.kind, ms: x.ms, at: from, frames });
      };
      const written = (x: ChapterBeat) => (x.kind === 'tween' ? framesOf(x.ms) : x.kind === 'wait' ? framesOf(x.ms * scale) : 0);
      const opens = (x: ChapterBeat) => x.captions.length > 0 || x.kind === 'checkpoint';
      let b = 0;
      while (b < list.length) {
        const x = list[b]!;
        if (x.kind === 'checkpoint') {
          // A caption that comes up with the question is said first, over the picture held.
          at = say(x.captions.flatMap((c) => cs.stepCues[c.step] ?? []), at);
          // The question is said (the panel up), then the predict beat: a countdown of 6–8 s with
          // the question still on screen; then the answer is said over the revealed picture.
          const q = cs.stepCues[x.step] ?? [];
          const qFrom = at;
          const qEnd = say(q, at);
          const beatEnd = qEnd + framesOf(predictMs(((qEnd - qFrom) * 1000) / FPS));
          // The question's last cue stays up until the reveal.
          if (q.length) cues[cues.length - 1]!.to = beatEnd;
          place(b, beatEnd - qFrom, qFrom);
          reveal = beatEnd;
          b++;
          // A tween right after the reveal plays while the answer is said: the answer is about it.
          let motion = 0;
          const next = list[b];
          if (next && next.kind === 'tween' && revealSteps(steps, x.step + 1).next === next.step) {
            motion = framesOf(next.ms);
            place(b, motion, beatEnd);
            b++;
          }
          at = Math.max(say(cs.answer, beatEnd), beatEnd + motion);
          beats.push({ chapter: cs.n, askFrom: qFrom, from: qEnd, to: beatEnd, answerTo: at });
          continue;
        }
        if (x.captions.length === 0) {
          // Before the first caption (or the end with nothing to say): as written.
          const f = written(x);
          place(b, f);
          at += f;
          b++;
          continue;
        }
        // A caption's block: this beat up to the next that brings up a caption or the question.
        let e = b + 1;
        while (e < list.length && !opens(list[e]!) && list[e]!.kind !== 'end') e++;
        const toEnd = e === list.length - 1 && !opens(list[e]!);
        const block = list.slice(b, e);
        const tweenFrames = block.reduce((n, y) => n + (y.kind === 'tween' ? framesOf(y.ms) : 0), 0);
        const waitMs = block.reduce((n, y) => n + (y.kind === 'wait' ? y.ms : 0), 0);
        const cueStart = at;
        const cueList = x.captions.flatMap((c) => cs.stepCues[c.step] ?? []);
        const cueEnd = say(cueList, at);
        const length = Math.max(cueEnd - cueStart, tweenFrames + framesOf(waitMs * scale * (toEnd ? 0.5 : 0.25)), 1);
        let waitBudget = Math.max(0, length - tweenFrames);
        let waitsLeft = waitMs;
        // A block with no waits: its last tween stretches over what is said, so it arrives where
        // the next sentence begins (a card lights as its time is said) rather than holding before it.
        const stretched = waitMs === 0 ? block.map((y) => y.kind).lastIndexOf('tween') : -1;
        for (const [k, y] of block.entries()) {
          let f = 0;
          if (y.kind === 'wait') {
            f = waitsLeft > 0 ? Math.round((waitBudget * y.ms) / waitsLeft) : 0;
            waitBudget -= f;
            waitsLeft -= y.ms;
          } else if (y.kind === 'tween') {
            f = framesOf(y.ms);
            if (k === stretched) {
              f += waitBudget;
              waitBudget = 0;
            }
          }
          place(b + k, f);
          at += f;
        }
        // No waits to take up the narration: hold at the end of the block.
        if (waitBudget > 0) at += waitBudget;
        at = Math.max(at, cueStart + length);
        // The block's cue stays up to the block's end (never past the next cue).
        if (cueList.length) cues[cues.length - 1]!.to = Math.max(cues[cues.length - 1]!.to, at);
        b = e;
      }
      // The chapter's end is what the last hold shows (the steps after the last beat played), for a frame at least.
      const last = timed[timed.length - 1]!;
      const prev = timed[timed.length - 2];
      const endFrom = prev && prev.kind !== 'checkpoint' ? Math.min(last.at, prev.at + prev.frames) : last.at;
      if (endFrom >= at) at = endFrom + 1;
      last.at = endFrom;
      last.frames = at - endFrom;
      scenes.push({ kind: 'body', chapter: cs.n, from: bodyFrom, to: at, beats: timed, reveal });
      marks.push({ n: cs.n, id: cs.id, title: cs.title, from: markFrom, to: at });
    }
  }
  // One cue at a time: a cue ends where the next begins.
  cues.sort((a, b) => a.from - b.from);
  for (let k = 0; k + 1 < cues.length; k++) cues[k]!.to = Math.min(cues[k]!.to, cues[k + 1]!.from);
  return { lang: script.lang, fps: FPS, frames: at, scenes, cues, beats, chapters: marks };
}

/**
 * Where a frame of a chapter's body is in the chapter's schedule: the latest beat started by then,
 * and its beat time (a stretched beat's frames map onto its live length, so a tween is as far
 * along as the same share of it live); between the question's reveal and the next beat, the
 * checkpoint revealed.
 */
export function positionAtFrame(scene: Extract<Scene, { kind: 'body' }>, frame: number): Position {
  let pos: Position = { beat: 0, ms: 0 };
  for (const tb of scene.beats) {
    if (tb.at > frame) break;
    pos = { beat: tb.beat, ms: tb.frames > 0 ? (Math.min(1, (frame - tb.at) / tb.frames) * tb.ms) : tb.ms };
  }
  const cp = scene.beats.find((tb) => tb.beat === pos.beat && tb.kind === 'checkpoint');
  if (cp && scene.reveal !== null && frame >= scene.reveal) pos.revealed = true;
  return pos;
}

/** The frame of a chapter's body `ms` into beat `beat` (beat time mapped as `positionAtFrame` reads it back); null when the body has no such beat. */
export function frameAtPosition(scene: Extract<Scene, { kind: 'body' }>, beat: number, ms = 0): number | null {
  const tb = scene.beats.find((x) => x.beat >= beat);
  if (!tb) return null;
  if (tb.beat !== beat || tb.ms <= 0 || tb.frames === 0) return Math.min(scene.to - 1, tb.at);
  return Math.min(scene.to - 1, tb.at + Math.min(tb.frames - 1, Math.round((Math.min(ms, tb.ms) / tb.ms) * tb.frames)));
}

/**
 * Every moving beat of the chapters (a tween) with how long after the latest cue's start it begins,
 * in seconds: the recorder writes these beside the chapter marks, and `record:measure` prints them.
 */
export function motionLeads(tl: Timeline): { chapter: number; /** The beat (walkthrough/timeline.ts). */ step: number; atS: number; leadS: number; cue: string }[] {
  const out: { chapter: number; step: number; atS: number; leadS: number; cue: string }[] = [];
  for (const scene of tl.scenes) {
    if (scene.kind !== 'body') continue;
    for (const b of scene.beats) {
      if (b.kind !== 'tween' || b.frames === 0) continue;
      const cue = tl.cues.filter((c) => c.from <= b.at).pop();
      if (!cue) continue;
      out.push({ chapter: scene.chapter, step: b.beat, atS: b.at / tl.fps, leadS: (b.at - cue.from) / tl.fps, cue: cue.text });
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
