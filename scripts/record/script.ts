/**
 * What the recorder says and when: the script of the chosen chapters in one language (from the
 * chapters and the facts file), each cue spoken, and the timeline their real lengths lay out. The
 * recorder renders that timeline; its test lays the same one out to know which cues a short render
 * (`--seconds`) must show.
 */
import { CHAPTERS } from '../../src/app/walkthrough/chapters/index.ts';
import { translate } from '../../src/app/i18n/messages.ts';
import type { Language } from '../../src/engine/switches.ts';
import { allCues, scriptOf, timelineOf, type Script, type Timeline } from '../../src/app/render/schedule.ts';
import { msOf, speak, type Pcm } from './speech.ts';

/** A fact's text in both languages (public/facts.json). */
export type FactLookup = (id: string) => { en: string; fr: string };

/** What the video says in one language, from the chapters and the facts file (the end card's fixes); `cards`: the title and end cards. */
export function scriptFor(lang: Language, chapterNumbers: readonly number[], cards: boolean, fact: FactLookup): Script {
  const pickFact = (id: string) => (lang === 'fr' ? fact(id).fr : fact(id).en);
  return scriptOf(
    chapterNumbers.map((n) => ({ n, chapter: CHAPTERS[n - 1]! })),
    lang,
    { chapter: translate(lang, 'screenChapter'), predict: translate(lang, 'screenPredict'), answer: translate(lang, 'screenAnswer') },
    cards ? { title: translate(lang, 'title'), subtitle: translate(lang, 'tagline') } : null,
    cards ? { heading: translate(lang, 'screenFixes'), fixes: ['F23', 'F24'].map((id) => ({ id, text: pickFact(id) })) } : null,
  );
}

/** Every cue of the script spoken (cached WAVs), and the frames their lengths lay out. */
export function narratedTimeline(script: Script, chapterNumbers: readonly number[], waitScale: number): { timeline: Timeline; pcm: Map<string, Pcm> } {
  const pcm = new Map<string, Pcm>(allCues(script).map((c) => [c.key, speak(c.text, script.lang)]));
  const timeline = timelineOf(
    script,
    chapterNumbers.map((n) => CHAPTERS[n - 1]!),
    { spokenMs: Object.fromEntries([...pcm].map(([k, p]) => [k, msOf(p)])), waitScale },
  );
  return { timeline, pcm };
}
