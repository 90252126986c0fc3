/**
 * What a walkthrough chapter is: its text in English and French, the evidence for every paragraph
 * (a fact id from the report, a public background source, or "model"), speaker notes, an optional
 * predict-before-reveal checkpoint, and the steps that drive the real views. One file per chapter
 * in chapters/, registered in chapters/index.ts.
 *
 * Rules the texts keep: a sentence that states an incident fact cites its id (F1…F26) and the
 * French quote is shown from public/facts.json, never retyped here; figures that the report does not
 * give (page counts, tenant names, prompt lengths of the demo) are said to be the model's.
 */
import type { ScenarioName } from '../../state/store.ts';
import type { Localised, Step } from './steps.ts';

export type Evidence = { facts: string[] } | { background: string[] } | { model: true };

export interface Paragraph {
  text: Localised;
  evidence: Evidence;
  /** It says the checkpoint's answer: the panel holds it back until the question is answered. */
  answers?: true;
}

export interface Checkpoint {
  question: Localised;
  options: { id: string; label: Localised }[];
  answer: string;
  /** Shown after the answer, whatever it was. */
  explain: Localised;
  /**
   * The first screen's outcome (the story's and the probe's: what prefill computed, the status, whose
   * words) answers it: the first screen holds that outcome back from the talk's start until this
   * question is revealed (the store's `questionAhead`), not only during its own chapter.
   */
  firstScreenTells?: true;
}

/**
 * What the screen layout and the video draw for a chapter: `view` the view the chapter's steps chose
 * (the default), `capacity` that view under the prompt-against-capacity gauge, `window` the leak
 * counter over the two weeks, `day` the day's milestones, `compare` the request with and without a fix.
 */
export type Picture = 'view' | 'capacity' | 'window' | 'day' | 'compare';

export interface Chapter {
  /** Stable slug, used by tests and the recorder's chapter file. */
  id: string;
  title: Localised;
  /**
   * The title shown until the question it would answer is revealed, where `title` would give an
   * answer away (chapters/spoilers.ts): the question's shape, not its answer.
   */
  asked?: Localised;
  paragraphs: Paragraph[];
  notes: Localised;
  checkpoint?: Checkpoint;
  /** The run the chapter plays on (default: the demo). */
  scenario?: ScenarioName;
  /** The picture the screen layout and the video draw (default: `view`). */
  picture?: Picture;
  steps: Step[];
  /** Where the video directs this chapter differently from the live walkthrough (default: `steps`). */
  videoSteps?: Step[];
}

/** The run a chapter plays on. */
export function scenarioOf(chapter: Chapter): ScenarioName {
  return chapter.scenario ?? 'demo';
}
