/**
 * The outcome matrix as two tables. The grid: each combination of defects (both, as in the
 * incident; each alone; neither) against no mitigation and each mitigation of the incident's
 * design, every cell what the over-capacity prompts got in a real run (answered 200, rejected 400,
 * failed closed 500, leaked, wrong output) and whether the registry expected it. Apart from it, the
 * rows the grid has no place for: the upstream mechanisms over both defects, and the abort race,
 * which runs a trace of its own. Every cell is a link to the page with those switches (the URL
 * codec writes it), so it opens in a new tab as well as setting the switches here.
 */
import { useId, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { DEFECT_COMBINATIONS, GRID_MITIGATIONS, MATRIX_ROWS, SWITCH_KEYS, type MatrixResult, type MatrixRow, type MitigationKey, type Switches } from '../../../engine/index.ts';
import { useT } from '../../i18n/i18n.ts';
import { formatNumber } from '../../i18n/format.ts';
import { useMatrix } from '../../run/hooks.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { serializeUrl } from '../../state/url.ts';
import { ModelBadge } from '../shared/Evidence.tsx';
import './matrix.css';

/** Which matrix row the switches correspond to (null when the combination is not a row). */
export function matrixRowOf(s: Switches): MatrixRow | null {
  // Only rows of the incident's design: the abort-race rows run their own trace, not the page's.
  return MATRIX_ROWS.find((row) => row.design === 'incident' && SWITCH_KEYS.every((k) => row.switches[k] === s[k])) ?? null;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One measured outcome, as a link that sets its switches. */
function OutcomeLink({ r, current }: { r: MatrixResult; current: boolean }) {
  const store = useAppStore();
  const t = useT();
  const lang = useApp((s) => s.lang);
  const set = useApp((s) => s.set);
  const fmt = (n: number) => formatNumber(n, lang);
  const href = serializeUrl({ ...store.getState(), switches: r.switches, chapter: null });
  const lines: ReactNode[] = [];
  if (r.refused) {
    lines.push(<span key="refused" className="mx-refused">{t('refused')}</span>);
  } else {
    const statuses = (
      [
        [200, r.served, 'answered200'],
        [400, r.rejected400, 'rejected400'],
        [500, r.errors500, 'failed500'],
      ] as const
    ).filter(([, n]) => n > 0);
    lines.push(
      <span key="status" className="mx-statuses">
        {statuses.map(([code, n, label]) => (
          <span key={code} className={`mx-status s${code}`} title={t(label)}>
            {fmt(n)}&thinsp;×&thinsp;{code}
          </span>
        ))}
      </span>,
    );
    lines.push(
      <span key="leak">
        <span className={r.leaked > 0 ? 'mx-bad' : 'mx-good'}>{r.leaked > 0 ? t('matrixLeakedN', { n: fmt(r.leaked) }) : t('matrixNoLeak')}</span>
        {r.breached > 0 ? (
          <>
            {' · '}
            <span className="mx-bad" data-testid="matrix-breached">{t('matrixBreachedN', { n: fmt(r.breached) })}</span>
          </>
        ) : null}
        {r.wrongOutput > 0 ? (
          <>
            {' · '}
            <span className="mx-bad">{t('matrixWrongN', { n: fmt(r.wrongOutput) })}</span>
          </>
        ) : null}
      </span>,
    );
    if (r.cancelled > 0) lines.push(<span key="cancelled">{t('matrixCancelledN', { n: fmt(r.cancelled) })}</span>);
  }
  return (
    <a
      className="mx-link"
      href={href}
      aria-current={current ? 'true' : undefined}
      data-testid="matrix-link"
      data-row={r.label}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0) return;
        e.preventDefault();
        set({ switches: r.switches });
      }}
    >
      {/* The configuration, for a link read on its own (a screen reader's list of links). */}
      <span className="sr-only">{capitalised(r.title[lang])}: </span>
      {current ? <span className="mx-current">▶ {t('current')}</span> : null}
      {lines}
      {r.matches ? (
        <span className="mx-mark ok" title={t('matrixAsExpected')}>
          ✓ {t('matrixExpected')}
        </span>
      ) : (
        <span className="mx-mark unexpected" title={t('matrixNotExpected')}>
          ✗ {t('matrixUnexpected')}
        </span>
      )}
    </a>
  );
}

export function OutcomeMatrix() {
  const t = useT();
  const matrix = useMatrix();
  const switches = useApp(useShallow((s) => s.switches));
  const lang = useApp((s) => s.lang);
  const gridCaption = useId();
  const gridDescription = useId();
  const otherCaption = useId();
  if (!matrix.data) return <p role="status">{t('loading')}</p>;
  const rows = matrix.data.rows;
  const current = matrixRowOf(switches)?.label ?? null;
  const cellOf = (combination: string, mitigation: MitigationKey | null) => rows.find((r) => r.cell?.combination === combination && r.cell.mitigation === mitigation) ?? null;
  const cell = (r: MatrixResult | null, key: string) =>
    r ? (
      <td key={key} className={r.label === current ? 'current' : undefined} data-cell={r.label}>
        <OutcomeLink r={r} current={r.label === current} />
      </td>
    ) : (
      <td key={key} className="not-measured">
        {t('matrixNotMeasured')}
      </td>
    );
  const groups = [
    { key: 'mechanisms', title: t('matrixMechanismsGroup'), rows: rows.filter((r) => r.cell === null && r.design === 'incident') },
    { key: 'abort-race', title: t('matrixAbortRaceGroup'), rows: rows.filter((r) => r.cell === null && r.design === 'abort-race') },
  ].filter((g) => g.rows.length > 0);
  return (
    <div className="matrix-box">
      {current === null ? (
        <p className="hint" data-testid="matrix-no-current">
          {t('matrixNoCurrent')}
        </p>
      ) : null}
      {/* Outside the scroll box, so a phone reads it without scrolling sideways. */}
      <p className="hint" id={gridDescription}>
        {t('matrixGridCaption')}
      </p>
      <div className="matrix-scroll" role="region" aria-labelledby={gridCaption}>
        <table className="matrix matrix-grid" data-testid="matrix" aria-describedby={gridDescription}>
          <caption id={gridCaption}>
            <strong>{t('matrixGridTitle')}</strong> <ModelBadge />
          </caption>
          <thead>
            <tr>
              <th scope="col" className="mx-corner">
                {t('matrixDefectsByMitigation')}
              </th>
              <th scope="col" data-mitigation="">
                {t('matrixNoMitigation')}
              </th>
              {GRID_MITIGATIONS.map((k) => (
                <th scope="col" key={k} data-mitigation={k}>
                  {t(`switch.${k}.label`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {DEFECT_COMBINATIONS.map((c) => (
              <tr key={c.id} data-combination={c.id}>
                <th scope="row">{capitalised(c.title[lang])}</th>
                {([null, ...GRID_MITIGATIONS] as (MitigationKey | null)[]).map((m) => cell(cellOf(c.id, m), m ?? 'none'))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {groups.length > 0 ? (
        <div className="matrix-scroll" role="region" aria-labelledby={otherCaption}>
          <table className="matrix matrix-other" data-testid="matrix-other">
            <caption id={otherCaption}>
              <strong>{t('matrixOtherCaption')}</strong> <ModelBadge />
            </caption>
            <thead>
              <tr>
                <th scope="col">{t('matrixConfiguration')}</th>
                <th scope="col">{t('matrixOutcomeCol')}</th>
              </tr>
            </thead>
            {groups.map((g) => (
              <tbody key={g.key} data-group={g.key}>
                <tr>
                  <th scope="rowgroup" colSpan={2} className="mx-group">
                    {g.title}
                  </th>
                </tr>
                {g.rows.map((r) => (
                  <tr key={r.label}>
                    <th scope="row">{capitalised(r.title[lang])}</th>
                    {cell(r, 'outcome')}
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </div>
      ) : null}
    </div>
  );
}
