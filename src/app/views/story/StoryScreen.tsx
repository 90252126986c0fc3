/**
 * The first screen: one request's story, large, with the numbers of the run (sent, computed,
 * reserved, status), where it stands at the scrubber's instant, and its answer's tokens tinted by
 * whose KV they came from; the mechanism picture beside it. Every sentence is chosen and filled from
 * the run (storyText.ts): a fix switched on changes what the story says because it changes what
 * happened. The structure is on screen from the first frame: while the run is computed, the same
 * places hold the progress, never a blank page.
 */
import { useMemo, type ReactNode } from 'react';
import { formatNumber } from '../../i18n/format.ts';
import { Tx, useT } from '../../i18n/i18n.ts';
import type { MessageKey } from '../../i18n/messages.ts';
import { useRequestDetail, type RunSummary } from '../../run/hooks.ts';
import { useMomentValue } from '../shared/useMoment.ts';
import { tokenSourcesOf } from '../../moment/moment.ts';
import { LensToggle, WhatIf } from './WhatIf.tsx';
import { useApp } from '../../state/store.ts';
import { FactBadge, ModelBadge } from '../shared/Evidence.tsx';
import { ResponseTokens } from '../response/ResponseTokens.tsx';
import { StoryPicture } from './StoryPicture.tsx';
import { PreparingHandoff } from '../stage/StageView.tsx';
import { refusedStoryText, storyFactsOf, storyPhaseAt, storyRequestOf, storyText, type Message } from './storyText.ts';
import { Term } from './Term.tsx';
import './story.css';

/** The request the story tells: the selected one, else the run's first leak (storyRequestOf). */
function useStoryRequest(run: RunSummary): number | null {
  const selected = useApp((s) => s.selectedRequest);
  return storyRequestOf(run, selected);
}

/**
 * The run's figures of a sentence as elements of their own, so the lens on the evidence dims them
 * while the sentence's fact stays bright: the model's numbers beside the report's capacity (F14).
 * The prefill limit is the report's where the capacity badge is (`reportCapacity`).
 */
function lensFigures(vars: Record<string, string>, reportCapacity: boolean): Record<string, ReactNode> {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, k === 'limit' && reportCapacity ? <span data-fact="F14">{v}</span> : <span className="lens-figure">{v}</span>]));
}

/** A sentence of the story, its glossed words and the capacity fact's badge as elements. */
function Explain({ message, pagesGloss, pageSize, reportCapacity = true }: { message: Message; pagesGloss: MessageKey; pageSize: number; reportCapacity?: boolean }) {
  const lang = useApp((s) => s.lang);
  const t = useT();
  return (
    <p className="story-explain" data-testid="story-explain">
      <Tx
        k={message.key}
        vars={{
          ...lensFigures(message.vars, reportCapacity),
          prefill: <Term term="termPrefill" gloss="glossPrefill" />,
          kv: <Term term="termKv" gloss="glossKv" />,
          decode: <Term term="termDecode" gloss="glossDecode" />,
          pages: <Term term="termPages" gloss={pagesGloss} vars={{ size: formatNumber(pageSize, lang) }} />,
          f14: reportCapacity ? <FactBadge id="F14" /> : <ModelBadge />,
          // The clauses that retell the report, and the model's counts, each with its badge.
          f17: <FactBadge id="F17" />,
          f19: <FactBadge id="F19" />,
          f20: <FactBadge id="F20" />,
          model: <ModelBadge title={t('storyCountsModel')} />,
        }}
      />
    </p>
  );
}

function Headline({ children }: { children: ReactNode }) {
  return (
    <h2 id="story-h" className="story-title" data-testid="story-title">
      {children}
    </h2>
  );
}

function NumbersPending() {
  const t = useT();
  return (
    <p className="story-numbers" data-testid="story-numbers">
      <span className="placeholder-text">{t('storyNumbersPending')}</span>
    </p>
  );
}

/** The run's numbers for the request; a held outcome (an open question) shows "…" for what prefill computed and the status. */
function Numbers({ numbers, outcome }: { numbers: { sent: string; computed: string; reserved: string; status: string }; outcome: string }) {
  const held = outcome === 'held';
  return (
    <p className="story-numbers" data-testid="story-numbers" data-outcome={outcome}>
      <Tx
        k="storyNumbers"
        vars={{
          sent: <b data-testid="story-sent">{numbers.sent}</b>,
          computed: held ? <b>…</b> : <b data-testid="story-computed">{numbers.computed}</b>,
          reserved: <b data-testid="story-reserved">{numbers.reserved}</b>,
          status: held ? <b>…</b> : <b data-testid="story-status">{numbers.status}</b>,
        }}
      />{' '}
      {/* The page count and the status are the run's: the model's, not the report's. */}
      <ModelBadge />
    </p>
  );
}

function Story({ run, progress }: { run: RunSummary; progress: ReactNode }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const req = useStoryRequest(run);
  const detail = useRequestDetail(run, req);
  const d = detail.data;
  const facts = useMemo(() => (d && d.runKey === run.runKey ? storyFactsOf(run, d.response, d.events) : null), [d, run]);
  // Re-rendered only when the request's standing changes, not on every scrubbed instant.
  // At the moment's instant: the handoff's when its clock runs, so the story, the stage and the counter agree.
  const phase = useMomentValue(run, req, d, (t) => (facts ? storyPhaseAt(facts, t) : null));
  // This chapter's question, or one still to come in the talk (the first screen's outcome answers several).
  const questionOpen = useApp((s) => s.questionOpen || s.questionAhead);
  if (!facts || !phase || !d) {
    return (
      <>
        <Headline>{t('storyTitlePending')}</Headline>
        {progress}
        <NumbersPending />
      </>
    );
  }
  const text = storyText(facts, phase, lang, run.startEpochMs, t);
  const say = (m: Message) => t(m.key, m.vars);
  if (questionOpen) {
    // A walkthrough question is open: the story keeps what the room knows (the prompt, the
    // reservation) and holds back what would answer it (what prefill computed, the status, whose words).
    return (
      <>
        <Headline>{t('storyTitlePending')}</Headline>
        {progress}
        <Numbers numbers={text.numbers} outcome="held" />
        <p className="story-who hint" data-testid="story-held">
          {t('storyHeld')}
        </p>
      </>
    );
  }
  return (
    <>
      <Headline>{say(text.headline)}</Headline>
      {progress}
      <Numbers numbers={text.numbers} outcome={facts.outcome} />
      <p className="story-when" data-testid="story-when" data-phase={phase}>
        {say(text.when)} <ModelBadge />
      </p>
      {facts.outputTokens > 0 ? (
        <>
          <p className="story-who">
            <span className={`story-leak${facts.leakedFrom.length ? ' alert' : ''}`} data-testid="story-leak">
              {facts.leakedFrom.length ? t('leakOf', { tenants: facts.leakedFrom.join(', ') }) : t('noLeak')}
            </span>{' '}
            <span className="hint">{say(text.who)}</span>
          </p>
          <ResponseTokens run={run} response={d.response} words={d.words} testId="story-tokens" className="story-tokens" sources={d.runKey === run.runKey ? tokenSourcesOf(run, d.response.request, d) : null} />
        </>
      ) : (
        <p className="story-who hint" data-testid="story-no-text">
          {say(text.who)}
        </p>
      )}
      <Explain message={text.explain} pagesGloss={text.pagesGloss} pageSize={facts.pageSize} reportCapacity={facts.reportCapacity} />
    </>
  );
}

function Refused({ refused, pageSize, progress }: { refused: string; pageSize: number; progress: ReactNode }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const text = refusedStoryText(refused, lang, t);
  return (
    <>
      <Headline>{t(text.headline.key, text.headline.vars)}</Headline>
      {progress}
      <Explain message={text.explain} pagesGloss="glossPageSlots" pageSize={pageSize} />
    </>
  );
}

export function StoryScreen({ run, progress }: { run: RunSummary | undefined; progress: ReactNode }) {
  const t = useT();
  return (
    <section className="story" aria-labelledby="story-h" data-testid="story">
      <div className="story-main">
        <LensToggle />
        {run ? <WhatIf run={run} /> : null}
        {run && run.refused !== null ? (
          <Refused refused={run.refused} pageSize={run.phases[0]?.pageSize ?? 0} progress={progress} />
        ) : run ? (
          <Story run={run} progress={progress} />
        ) : (
          <>
            <Headline>{t('storyTitlePending')}</Headline>
            {progress}
            <NumbersPending />
          </>
        )}
      </div>
      <div className="story-side">
        {run && !run.refused ? (
          <StoryPicture />
        ) : run ? (
          <div className="picture-pending">{t('pictureRefused')}</div>
        ) : progress ? (
          // The line where the picture will be, and its Play, kept until the picture is ready.
          <div className="picture-pending">
            <p>{t('picturePending')}</p>
            <PreparingHandoff why={t('hcPreparingRun')} />
          </div>
        ) : (
          // Nothing being computed (a run that failed, said above; an operator's numbers not yet given): no Play to promise.
          <div className="picture-pending">{t('picturePending')}</div>
        )}
      </div>
    </section>
  );
}
