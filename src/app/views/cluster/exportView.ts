/** Exports of what the person is looking at: the grids as PNG or SVG, the leaks as CSV or JSON. */
import type { RunSummary, Snapshot } from '../../run/hooks.ts';
import { FLAG_LEAK_CANARY, FLAG_LEAK_PROVENANCE } from '../../../engine/index.ts';
import { gridLayout, pageGridSvg } from './pageGrid.ts';
import { EXPORT_INK, EXPORT_PAPER } from '../../ui/palette.ts';

/** Saves a blob as a file named `name` (also the room's CSV). */
export function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** All node grids stacked into one PNG, each under its name. */
export function exportPng(root: HTMLElement, name: string): void {
  const canvases = [...root.querySelectorAll<HTMLCanvasElement>('canvas[data-node]')];
  if (canvases.length === 0) return;
  const gap = 22;
  const width = Math.max(...canvases.map((c) => c.width));
  const height = canvases.reduce((a, c) => a + c.height + gap, 0);
  const out = document.createElement('canvas');
  out.width = width;
  out.height = height;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = EXPORT_PAPER;
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = EXPORT_INK;
  ctx.font = '13px system-ui, sans-serif';
  let y = 0;
  for (const c of canvases) {
    ctx.fillText(c.dataset.node ?? '', 2, y + 15);
    ctx.drawImage(c, 0, y + gap - 2);
    y += c.height + gap;
  }
  out.toBlob((blob) => blob && download(`${name}.png`, blob), 'image/png');
}

export function exportSvg(snapshot: Snapshot, width: number, title: string, name: string): void {
  let y = 0;
  const groups: string[] = [];
  for (const node of snapshot.nodes) {
    const layout = gridLayout(node.pageCount, width);
    groups.push(`<text x="0" y="${y + 14}" font-family="sans-serif" font-size="13">${node.name}</text>`);
    groups.push(`<g transform="translate(0,${y + 20})">${pageGridSvg(node, layout, node.name)}</g>`);
    y += layout.height + 28;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}"><title>${title}</title>${groups.join('')}</svg>`;
  download(`${name}.svg`, new Blob([svg], { type: 'image/svg+xml' }));
}

export interface LeakRow {
  id: string;
  tenant: string;
  arrivedUtc: string;
  finishedUtc: string;
  promptTokens: number;
  computedTokens: number;
  status: number;
  canaryFound: boolean;
}

export function leakRows(run: RunSummary): LeakRow[] {
  const rows: LeakRow[] = [];
  run.requests.flags.forEach((f, i) => {
    if (!(f & FLAG_LEAK_PROVENANCE)) return;
    rows.push({
      id: run.requests.ids[i]!,
      tenant: run.tenants[run.requests.tenant[i]!]!,
      arrivedUtc: new Date(run.startEpochMs + run.requests.arrivedAt[i]!).toISOString(),
      finishedUtc: new Date(run.startEpochMs + run.requests.finishedAt[i]!).toISOString(),
      promptTokens: run.requests.promptTokens[i]!,
      computedTokens: run.requests.computedTokens[i]!,
      status: run.requests.status[i]!,
      canaryFound: (f & FLAG_LEAK_CANARY) !== 0,
    });
  });
  return rows;
}

/**
 * What the export's values are: a model's replay, not the report's data. Every row's tenant, times,
 * lengths and status come from the model's traffic and engine, each named by its assumption.
 */
export const LEAKS_NOTE =
  'A model\u2019s replay, not data from the report: tenant names (A1), arrival and finish times (A3, A5, A6, A7, A13), prompt lengths (A4, A5), the cluster and its timing (A11) and the HTTP status (the model\u2019s, F17) are modelled; the canary is a modelling device (A12). The report gives only the count (F2) and the threshold (F4).';

export function leaksCsv(rows: LeakRow[]): string {
  // Column names say the values are the model's, so a table read without this file's note still does.
  const head = 'id_model,tenant_model_A1,arrived_utc_model_A5,finished_utc_model_A11,prompt_tokens_model_A5,computed_tokens_model,status_model,canary_found_model_A12';
  const esc = (v: string | number | boolean) => {
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [head, ...rows.map((r) => [r.id, r.tenant, r.arrivedUtc, r.finishedUtc, r.promptTokens, r.computedTokens, r.status, r.canaryFound].map(esc).join(','))].join('\n') + '\n';
}

export function exportLeaks(run: RunSummary, format: 'csv' | 'json', name: string): void {
  const rows = leakRows(run);
  if (format === 'csv') download(`${name}.csv`, new Blob([leaksCsv(rows)], { type: 'text/csv' }));
  else download(`${name}.json`, new Blob([JSON.stringify({ run: run.traceName, note: LEAKS_NOTE, eventLogHash: run.eventLogHash, leaks: rows }, null, 2)], { type: 'application/json' }));
}
