/**
 * What-if and the lens on the evidence, above the story.
 *
 * When any switch differs from the incident's, the replay is a what-if: it says so, names each switch
 * that differs and what this replay measured, and reminds that the report's figures (badged with a
 * fact id) describe the incident, not this replay. The lens is one control (URL `lens=report`) that
 * dims every modelled or assumed figure, word and picture, so a reader sees where the report ends and
 * the model begins (the CSS in lens.css, on the page while the lens is on: what holds no `data-fact` is dimmed).
 */
import { useEffect } from 'react';
import lensRules from './lens.css?inline';
import { setPageRules } from '../shared/highlight.ts';
import { useT } from '../../i18n/i18n.ts';
import { formatNumber } from '../../i18n/format.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { INCIDENT_SWITCHES, SWITCHES, type SwitchKey } from '../../../engine/switches.ts';
import { useApp } from '../../state/store.ts';

/** The switches that differ from the incident's, in the registry's order. */
export function whatIfSwitches(switches: Record<SwitchKey, boolean>): SwitchKey[] {
  return SWITCHES.map((s) => s.key as SwitchKey).filter((k) => switches[k] !== INCIDENT_SWITCHES[k]);
}

export function WhatIf({ run }: { run: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const switches = useApp((s) => s.switches);
  const changed = whatIfSwitches(switches);
  if (changed.length === 0 || run.refused) return null;
  const fmt = (n: number) => formatNumber(n, lang);
  const c = run.counters;
  const named = changed.map((k) => t(switches[k] ? 'whatIfOn' : 'whatIfOff', { label: t(`switch.${k}.label`) })).join(' · ');
  return (
    <p className="what-if" role="note" data-testid="what-if" data-switches={changed.join(',')}>
      <b>{t('whatIfTitle')}</b> {t('whatIfBody', { switches: named, leaked: fmt(c.leaked), rejected: fmt(c.rejected), failed: fmt(c.errors), requests: fmt(c.requests) })}
    </p>
  );
}

/** The lens's switch; the page's root carries it (data-lens), and its rules are on the page while it is on. */
export function LensToggle() {
  const t = useT();
  const lens = useApp((s) => s.lens);
  const set = useApp((s) => s.set);
  useEffect(() => {
    document.documentElement.dataset.lens = lens;
    setPageRules('lens-rules', lens === 'report' ? lensRules : '');
  }, [lens]);
  return (
    <label className="lens-toggle lens-keep" title={t('lensHint')}>
      <input type="checkbox" checked={lens === 'report'} onChange={(e) => set({ lens: e.target.checked ? 'report' : 'all' })} data-testid="lens" /> {t('lensLabel')}
    </label>
  );
}
