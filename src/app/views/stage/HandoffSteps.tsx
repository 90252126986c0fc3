/**
 * The handoff's steps as a list: the one step list of the moment (the stage's, on the handoff
 * clock), each step's time and sentence, the current one marked, a click seeking to it. The Transfer
 * view lists it under its stepper; the first screen beside the stage.
 */
import { useLayoutEffect, useRef } from 'react';
import { useT } from '../../i18n/i18n.ts';
import { formatOffsetSeconds } from '../../i18n/format.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import type { Moment } from '../../moment/moment.ts';
import { highlightable } from '../shared/highlight.ts';
import { goToStep } from '../shared/useMoment.ts';
import { stepSentence } from './StageView.tsx';

export function HandoffSteps({ run, moment, pointable = false, className = 'steps', testId }: { run: RunSummary; moment: Moment; pointable?: boolean; className?: string; testId?: string }) {
  const t = useT();
  const store = useAppStore();
  const lang = useApp((s) => s.lang);
  const { script } = moment;
  const events = moment.detail.events;
  const current = moment.position.index;
  // While a walkthrough question waits, the steps still to come would tell its answer (who wrote the
  // pages decode reads, what the client gets): their sentences wait for the reveal.
  const questionOpen = useApp((s) => s.questionOpen);
  // A list shorter than its steps (the first screen's, beside the stage) keeps the current step in
  // its middle; only the list scrolls, never the page.
  const list = useRef<HTMLOListElement>(null);
  useLayoutEffect(() => {
    const el = list.current;
    const li = el?.children[current] as HTMLElement | undefined;
    if (!el || !li || el.scrollHeight <= el.clientHeight) return;
    el.scrollTop = Math.max(0, li.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop - (el.clientHeight - li.offsetHeight) / 2);
  }, [current]);
  return (
    <ol ref={list} className={className} data-testid={testId} {...(pointable ? highlightable('steps') : {})}>
      {script.steps.map((s, i) => {
        const e = events[s.event]!;
        return (
          <li key={i} className={i === current ? 'current' : i < current ? 'past' : 'future'} aria-current={i === current ? 'step' : undefined} data-event={e.type} data-step={s.id}>
            <button type="button" className="linklike" onClick={() => goToStep(store, script, i)}>
              <time dateTime={new Date(run.startEpochMs + e.t).toISOString()}>{formatOffsetSeconds(e.t - events[0]!.t, lang)}</time>
            </button>{' '}
            {questionOpen && i > current ? <span className="hint">{t('stepHeld')}</span> : stepSentence(s, moment, t, lang)}
          </li>
        );
      })}
    </ol>
  );
}
