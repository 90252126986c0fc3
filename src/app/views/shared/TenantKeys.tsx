/**
 * A legend of tenants: a swatch and a name for each tenant a picture shows, the first `max`, and how
 * many more it folds ("+3 more tenants"), never a tenant left out unsaid. The grids and the stage
 * use it with the tenants their pools hold at the moment (moment.ts `tenantsHeldBy`).
 */
import { formatNumber } from '../../i18n/format.ts';
import { useT } from '../../i18n/i18n.ts';
import { useApp } from '../../state/store.ts';
import { tenantCss } from '../../ui/palette.ts';

export function TenantKeys({ roster, tenants, max = 12, testId }: { roster: readonly string[]; tenants: readonly number[]; max?: number; testId: string }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const shown = tenants.slice(0, max);
  return (
    <ul className="tenant-keys" data-testid={testId} data-tenants={tenants.map((i) => roster[i]).join(',')}>
      {shown.map((i) => (
        <li key={i}>
          <span className="swatch" style={{ background: tenantCss(i) }} aria-hidden="true" /> {roster[i]}
        </li>
      ))}
      {tenants.length > shown.length ? <li data-testid={`${testId}-folded`}>{t('legendFolded', { n: formatNumber(tenants.length - shown.length, lang) })}</li> : null}
    </ul>
  );
}
