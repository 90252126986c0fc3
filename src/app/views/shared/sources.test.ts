/**
 * Every public source the page shows carries its address: each background id cited anywhere resolves
 * to an entry of the facts file with an https address, and every pull request, issue or client
 * library named in the page's text is cited with the source whose address names it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FactIndex, parseFactsFile } from '../../../data/facts.ts';
import { ASSUMPTIONS } from '../../../engine/incident/index.ts';
import { SWITCHES, type Switch } from '../../../engine/switches.ts';
import { CHECKED_CONFIGS } from '../../../engine/protocol/index.ts';
import { MESSAGES, type MessageKey } from '../../i18n/messages.ts';
import { CHAPTERS } from '../../walkthrough/chapters/index.ts';

const facts = new FactIndex(parseFactsFile(JSON.parse(readFileSync(new URL('../../../../public/facts.json', import.meta.url), 'utf8'))));
const background = new Map(facts.file.background.map((b) => [b.id, b]));
const addresses = (id: string) => {
  const b = background.get(id);
  return b ? [b.url, ...(b.moreUrls ?? [])] : [];
};

/** Numbers of pull requests and issues a text names: "#38704". */
const numbersIn = (text: string) => [...text.matchAll(/#(\d{4,})/g)].map((m) => m[1]!);

/** Every .ts/.tsx file of the app, for the ids its views cite in JSX (`<SourceRef id="B10" />`). */
function appSources(dir = fileURLToPath(new URL('../../', import.meta.url))): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return appSources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [readFileSync(p, 'utf8')] : [];
  });
}

/** Each text the page shows that may name a source, with the background ids shown beside it. */
function citingTexts(): { where: string; text: string; cites: string[] }[] {
  const out: { where: string; text: string; cites: string[] }[] = [];
  for (const ch of CHAPTERS) {
    const all = ch.paragraphs.flatMap((p) => ('background' in p.evidence ? p.evidence.background : []));
    for (const lang of ['en', 'fr'] as const) {
      ch.paragraphs.forEach((p, i) => out.push({ where: `${ch.id} ¶${i + 1}`, text: p.text[lang], cites: 'background' in p.evidence ? p.evidence.background : [] }));
      // Notes and captions show beside the chapter's sources list.
      out.push({ where: `${ch.id} notes`, text: ch.notes[lang], cites: all });
      for (const s of ch.steps) if ('caption' in s) out.push({ where: `${ch.id} caption`, text: s.caption[lang], cites: all });
    }
  }
  for (const c of CHECKED_CONFIGS) {
    for (const part of ['title', 'note'] as const) {
      for (const lang of ['en', 'fr'] as const) {
        out.push({ where: `verify ${c.config.id} ${part}`, text: MESSAGES[lang][`vpConfig.${c.config.id}.${part}` as MessageKey], cites: [...c.sources] });
      }
    }
  }
  for (const b of facts.file.background) out.push({ where: b.id, text: `${b.en} ${b.fr}`, cites: [b.id] });
  for (const f of facts.file.facts) out.push({ where: f.id, text: `${f.en} ${f.fr}`, cites: [] });
  for (const a of ASSUMPTIONS) out.push({ where: a.id, text: `${a.en} ${a.fr} ${a.reasonEn} ${a.reasonFr}`, cites: [] });
  for (const lang of ['en', 'fr'] as const) {
    for (const [k, v] of Object.entries(MESSAGES[lang])) if (!k.startsWith('vpConfig.')) out.push({ where: `catalogue ${k}`, text: v, cites: [] });
  }
  return out;
}

describe('every background source shown carries its address', () => {
  it('resolves every cited id to a source with an https address', () => {
    const cited = new Set<string>();
    for (const ch of CHAPTERS) for (const p of ch.paragraphs) if ('background' in p.evidence) p.evidence.background.forEach((id) => cited.add(id));
    for (const s of SWITCHES as readonly Switch[]) if ('background' in s.evidence) cited.add(s.evidence.background);
    for (const c of CHECKED_CONFIGS) c.sources.forEach((id) => cited.add(id));
    for (const src of appSources()) for (const m of src.matchAll(/<SourceRef id="(B\d+)"/g)) cited.add(m[1]!);
    expect(cited.size).toBeGreaterThan(5);
    for (const id of cited) {
      expect(background.has(id), `${id} is not in the facts file`).toBe(true);
      for (const url of addresses(id)) expect(url, id).toMatch(/^https:\/\/[^\s]+$/);
    }
  });

  it('cites, beside every pull request or issue it names, the source whose address names it', () => {
    for (const { where, text, cites } of citingTexts()) {
      for (const n of numbersIn(text)) {
        const ok = cites.some((id) => addresses(id).some((url) => new RegExp(`/(pull|issues)/${n}$`).test(url)));
        expect(ok, `${where} names #${n} without a source whose address is it (cites: ${cites.join(', ') || 'none'})`).toBe(true);
      }
      if (/redis-py/.test(text)) expect(cites.some((id) => addresses(id).some((u) => u.includes('github.com/redis/redis-py'))), `${where}: redis-py without its address`).toBe(true);
    }
  });

  it('shows every background entry of the facts file, with its address, in the evidence panel', () => {
    const panel = readFileSync(new URL('./EvidenceLists.tsx', import.meta.url), 'utf8');
    expect(panel).toMatch(/file\?\.background[\s\S]*<SourceRef id=\{b\.id\}/);
    for (const b of facts.file.background) expect(b.url, b.id).toMatch(/^https:\/\//);
  });
});
