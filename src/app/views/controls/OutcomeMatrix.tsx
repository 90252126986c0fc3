/**
 * The outcome matrix as a table: each configuration the engine measures (defects on or fixed, each
 * mitigation over both defects) against what its over-capacity prompts got: answered 200, rejected
 * 400, failed closed 500, leaked, wrong output, and whether that is the outcome the registry expects.
 * Every row is a link to the page with those switches (the URL codec writes it), so it opens in a new
 * tab as well as setting the switches here.
 */
import { useShallow } from 'zustand/react/shallow';
import { MATRIX_ROWS, SWITCH_KEYS, type MatrixResult, type MatrixRow, type Switches } from '../../../engine/index.ts';
import { useT } from '../../i18n/i18n.ts';
import { formatNumber } from '../../i18n/format.ts';
import { useMatrix } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { serializeUrl } from '../../state/url.ts';
import { ModelBadge } from '../shared/Evidence.tsx';

/** Which matrix row the switches correspond to (null when the combination is not a row). */
export function matrixRowOf(s: Switches): MatrixRow | null {
  // Only rows of the incident's design: the abort-race rows run their own trace, not the page's.
  return MATRIX_ROWS.find((row) => row.design === 'incident' && SWITCH_KEYS.every((k) => row.switches[k] === s[k])) ?? null;
}

export function OutcomeMatrix() {
  const t = useT();
  const matrix = useMatrix();
  const switches = useApp(useShallow((s) => s.switches));
  const lang = useApp((s) => s.lang);
  const set = useApp((s) => s.set);
  const fmt = (n: number) => formatNumber(n, lang);
  const currentRow = matrixRowOf(switches);
  if (!matrix.data) return <p role="status">{t('loading')}</p>;
  const hrefOf = (r: MatrixResult) => serializeUrl({ ...useApp.getState(), switches: r.switches, chapter: null });
  const count = (n: number, bad = false) => <td className={`num${bad && n > 0 ? ' bad' : ''}`}>{fmt(n)}</td>;
  return (
    <div className="matrix-scroll">
      <table className="matrix" data-testid="matrix">
        <caption>
          {t('matrixCaption')} <ModelBadge />
        </caption>
        <thead>
          <tr>
            <th scope="col">{t('matrixConfiguration')}</th>
            <th scope="col" className="num" title={t('answered200')}>
              200
            </th>
            <th scope="col" className="num" title={t('rejected400')}>
              400
            </th>
            <th scope="col" className="num" title={t('failed500')}>
              500
            </th>
            <th scope="col" className="num">
              {t('leaked')}
            </th>
            <th scope="col" className="num">
              {t('wrongOutput')}
            </th>
            <th scope="col">{t('matrixAsExpectedCol')}</th>
          </tr>
        </thead>
        <tbody>
          {matrix.data.rows.map((r) => {
            const current = currentRow?.label === r.label;
            return (
              <tr key={r.label} className={current ? 'current' : ''} aria-current={current ? 'true' : undefined} data-row={r.label}>
                <th scope="row">
                  <a
                    href={hrefOf(r)}
                    onClick={(e) => {
                      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                      e.preventDefault();
                      set({ switches: r.switches });
                    }}
                    data-testid="matrix-link"
                  >
                    {current ? <span aria-label={t('current')}>▶ </span> : null}
                    {r.title[lang]}
                  </a>
                </th>
                {r.refused ? (
                  <td colSpan={5}>{t('refused')}</td>
                ) : (
                  <>
                    {count(r.served)}
                    {count(r.rejected400)}
                    {count(r.errors500)}
                    {count(r.leaked, true)}
                    {count(r.wrongOutput, true)}
                  </>
                )}
                <td>{r.matches ? <span aria-label={t('matrixAsExpected')}>✓</span> : <span aria-label={t('matrixNotExpected')}>✗</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
