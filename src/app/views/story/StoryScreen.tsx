/**
 * The first screen: the leaked response, large, with the numbers of the run (sent, computed, status)
 * and its tokens tinted by whose KV they came from; the mechanism picture beside it; how many leaked
 * responses have gone out by the scrubber's instant. The structure is on screen from the first
 * frame: while the run is computed, the same places hold the progress, never a blank page.
 */
import type { ReactNode } from 'react';
import { INCIDENT_CONFIG } from '../../../engine/config.ts';
import { formatNumber } from '../../i18n/format.ts';
import { Tx, useT } from '../../i18n/i18n.ts';
import { useRequestDetail, type RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { FactBadge, ModelBadge } from '../shared/Evidence.tsx';
import { ResponseTokens } from '../response/ResponseTokens.tsx';
import { StoryPicture } from './StoryPicture.tsx';
import { Term } from './Term.tsx';
import './story.css';

/** The request the story tells: the selected one, else the run's first leak. */
function useStoryRequest(run: RunSummary | undefined): number | null {
  const selected = useApp((s) => s.selectedRequest);
  if (!run) return null;
  if (selected !== null && selected < run.requests.count) return selected;
  return run.leaks[0]?.request ?? null;
}

function LeakedResponse({ run }: { run: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const req = useStoryRequest(run);
  const detail = useRequestDetail(run, req);
  const r = detail.data?.response;
  const pageSize = req !== null ? (run.phases[run.requests.phase[req]!]?.pageSize ?? 0) : 0;
  const placeholder = !!r && r.computedTokens === 1 && r.promptTokens > 1;
  return (
    <>
      <p className="story-numbers" data-testid="story-numbers">
        {r ? (
          <Tx
            k="storyNumbers"
            vars={{
              sent: <b data-testid="story-sent">{fmt(r.promptTokens)}</b>,
              computed: <b data-testid="story-computed">{fmt(r.computedTokens)}</b>,
              status: <b data-testid="story-status">{r.status}</b>,
            }}
          />
        ) : (
          <span className="placeholder-text">{t('storyNumbersPending')}</span>
        )}
      </p>
      {r ? (
        <p className="story-who">
          <span className={`story-leak${r.leakedFrom.length ? ' alert' : ''}`} data-testid="story-leak">
            {r.leakedFrom.length ? t('leakOf', { tenants: r.leakedFrom.join(', ') }) : t('noLeak')}
          </span>{' '}
          <span className="hint">{t('storyWho', { request: r.id, tenant: r.tenant })}</span> <ModelBadge />
        </p>
      ) : null}
      {r && r.tokens.length > 0 ? (
        <ResponseTokens run={run} response={r} words={detail.data?.words ?? []} testId="story-tokens" className="story-tokens" />
      ) : r ? (
        <p className="hint">{t('notServed')}</p>
      ) : null}
      <StoryExplain placeholder={placeholder} pageSize={pageSize} />
    </>
  );
}

/** The mechanism in two sentences, its words glossed; readable before the run is there. */
function StoryExplain({ placeholder, pageSize }: { placeholder: boolean; pageSize: number }) {
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  return (
    <p className="story-explain">
      {placeholder ? (
        <Tx
          k="storyExplainLeak"
          vars={{
            prefill: <Term term="termPrefill" gloss="glossPrefill" />,
            kv: <Term term="termKv" gloss="glossKv" />,
            decode: <Term term="termDecode" gloss="glossDecode" />,
            pages: <Term term="termPages" gloss="glossPage" vars={{ size: fmt(pageSize) }} />,
            f14: <FactBadge id="F14" />,
          }}
        />
      ) : (
        <Tx
          k="storyExplainServed"
          vars={{
            prefill: <Term term="termPrefill" gloss="glossPrefill" />,
            kv: <Term term="termKv" gloss="glossKv" />,
            decode: <Term term="termDecode" gloss="glossDecode" />,
            pages: <Term term="termPages" gloss="glossPage" vars={{ size: fmt(pageSize) }} />,
          }}
        />
      )}
    </p>
  );
}

export function StoryScreen({ run, progress }: { run: RunSummary | undefined; progress: ReactNode }) {
  const t = useT();
  return (
    <section className="story" aria-labelledby="story-h" data-testid="story">
      <div className="story-main">
        <h2 id="story-h" className="story-title">
          {t('storyTitle')}
        </h2>
        {progress}
        {run && !run.refused ? (
          <LeakedResponse run={run} />
        ) : !run ? (
          <>
            <p className="story-numbers placeholder-text">{t('storyNumbersPending')}</p>
            <StoryExplain placeholder pageSize={INCIDENT_CONFIG.pageSize} />
          </>
        ) : null}
      </div>
      <div className="story-side">
        {run && !run.refused ? <StoryPicture /> : <div className="picture-pending">{t('picturePending')}</div>}
      </div>
    </section>
  );
}
