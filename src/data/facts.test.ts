import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADVERTISED_CONTEXT_TOKENS, FIXED_PREFILL_CAPACITY_TOKENS, INCIDENT_PREFILL_CAPACITY_TOKENS } from '../engine/config.ts';
import {
  MILESTONE_T,
  WINDOW_START_MS,
  CHECKS_BEGIN_DAY_ISO,
  DECLARED_ISO,
  PRIVATE_AFTER_MINUTES,
  PRIVATE_ISO,
  PUBLIC_ISO,
  REPORTED_AFFECTED_RESPONSES,
  REPRODUCTION_UNDER_MINUTES,
  RESEARCHER_REPORT_DAY_ISO,
  ROOT_CAUSE_ISO,
  WINDOW_LAST_DAY_ISO,
  WINDOW_START_ISO,
  ASSUMPTIONS,
} from '../engine/incident/index.ts';
import { FactIndex, parseFactsFile, milestoneStartMs, FactsFileError } from './facts.ts';
import { loadFacts } from './loadFacts.ts';

const raw = JSON.parse(readFileSync(new URL('../../public/facts.json', import.meta.url), 'utf8')) as unknown;
const report = readFileSync(new URL('./source/report-article.fr.txt', import.meta.url), 'utf8');
const facts = new FactIndex(parseFactsFile(raw));
// shared/ sits beside the checkout (here and in CI); elsewhere the copy beside the loader is the source.
const factsMd = (() => {
  try {
    return readFileSync(new URL('../../../shared/incident/FACTS.md', import.meta.url), 'utf8');
  } catch {
    return null;
  }
})();

describe('public/facts.json', () => {
  it('validates, with every fact F1–F26 once', () => {
    expect(facts.file.facts.map((f) => f.id)).toEqual(Array.from({ length: 26 }, (_, i) => `F${i + 1}`));
  });

  it('quotes the report verbatim for every fact', () => {
    for (const f of facts.file.facts) expect(report.includes(f.quote), `${f.id}: ${f.quote}`).toBe(true);
  });

  it("uses the report's copy that shared/incident holds, when it is there", () => {
    let shared: string | null = null;
    try {
      shared = readFileSync(new URL('../../../shared/incident/report-article.fr.txt', import.meta.url), 'utf8');
    } catch {
      /* outside this workspace the copy beside the loader is the source */
    }
    if (shared !== null) expect(report).toBe(shared);
  });

  it("contains each FACTS.md French anchor in that fact's quote (where the anchor is contiguous)", () => {
    if (factsMd === null) return;
    for (const line of factsMd.split('\n')) {
      const m = /^\| (F\d+) \|.*« (.+?) » \|$/.exec(line);
      if (!m) continue;
      const [, id, anchor] = m;
      for (const part of anchor!.split(' … ')) expect(facts.byId.get(id!)!.quote, id).toContain(part);
    }
  });

  it('gives milestones with the precision the report gives', () => {
    const precision = Object.fromEntries(facts.timeline().map((m) => [m.key, m.time ?? m.precision]));
    expect(precision).toEqual({
      windowStart: 'day', researcherReport: 'day', checksBegin: 'day', reproduction: 'day', windowEnd: 'day',
      declared: '13:22', private: '14:00', rootCause: '14:35', public: '19:40', publication: 'day',
    });
    expect(facts.milestone('publication').date).toBe('2026-10-26');
    expect(facts.timeline().map((m) => m.key).indexOf('declared')).toBeLessThan(facts.timeline().map((m) => m.key).indexOf('private'));
  });

  it('holds the figures 155, 681,280, 1,048,576 and ~2.04 M', () => {
    expect(facts.figure('affectedResponses').value).toBe(155);
    expect(facts.figure('affectedThresholdTokens').value).toBe(681_280);
    expect(facts.figure('prefillCapacityTokens').value).toBe(681_280);
    expect(facts.figure('advertisedContextTokens').value).toBe(1_048_576);
    expect(facts.figure('fixedPrefillCapacityTokens')).toMatchObject({ value: 2_040_000, approximate: true });
  });

  it('keeps background sources apart, each with an https address', () => {
    expect(facts.file.background.length).toBeGreaterThanOrEqual(4);
    for (const b of facts.file.background) {
      expect(b.kind).toBe('background');
      expect(b.url).toMatch(/^https:\/\//);
    }
    expect(facts.file.notInReport.every((n) => n.kind === 'not-in-report')).toBe(true);
  });

  it('rejects a file whose fact lacks its quote', () => {
    const broken = structuredClone(raw) as { facts: { quote?: string }[] };
    delete broken.facts[0]!.quote;
    expect(() => parseFactsFile(broken)).toThrow(FactsFileError);
  });

  it('loads through fetch and reports HTTP errors', async () => {
    const ok = (async () => new Response(JSON.stringify(raw), { status: 200 })) as unknown as typeof fetch;
    expect((await loadFacts(ok)).figure('affectedResponses').value).toBe(155);
    const missing = (async () => new Response('', { status: 404 })) as unknown as typeof fetch;
    await expect(loadFacts(missing)).rejects.toThrow('HTTP 404');
  });
});

describe('engine constants carry the facts', () => {
  it('config.ts figures equal the facts file', () => {
    expect(ADVERTISED_CONTEXT_TOKENS).toBe(facts.figure('advertisedContextTokens').value);
    expect(INCIDENT_PREFILL_CAPACITY_TOKENS).toBe(facts.figure('prefillCapacityTokens').value);
    expect(INCIDENT_PREFILL_CAPACITY_TOKENS).toBe(facts.figure('affectedThresholdTokens').value);
    expect(FIXED_PREFILL_CAPACITY_TOKENS).toBe(facts.figure('fixedPrefillCapacityTokens').value);
  });

  it('incident timeline constants equal the facts file', () => {
    expect(REPORTED_AFFECTED_RESPONSES).toBe(facts.figure('affectedResponses').value);
    expect(PRIVATE_AFTER_MINUTES).toBe(facts.figure('privateAfterMinutes').value);
    expect(REPRODUCTION_UNDER_MINUTES).toBe(facts.figure('reproductionMinutes').value);
    const at = (key: string) => new Date(milestoneStartMs(facts.milestone(key))).toISOString().replace('.000Z', 'Z');
    expect(WINDOW_START_ISO).toBe(at('windowStart'));
    expect(WINDOW_LAST_DAY_ISO).toBe(facts.milestone('windowEnd').date);
    expect(RESEARCHER_REPORT_DAY_ISO).toBe(facts.milestone('researcherReport').date);
    expect(CHECKS_BEGIN_DAY_ISO).toBe(facts.milestone('checksBegin').date);
    expect(DECLARED_ISO).toBe(at('declared'));
    expect(PRIVATE_ISO).toBe(at('private'));
    expect(ROOT_CAUSE_ISO).toBe(at('rootCause'));
    expect(PUBLIC_ISO).toBe(at('public'));
    expect(Date.parse(PRIVATE_ISO) - Date.parse(DECLARED_ISO)).toBe(PRIVATE_AFTER_MINUTES * 60_000);
    // The named instants chapters seek to are the facts file's milestones.
    for (const [key, t] of Object.entries(MILESTONE_T)) expect(WINDOW_START_MS + t, key).toBe(milestoneStartMs(facts.milestone(key)));
  });

  it('assumptions fill only not-in-report items and cite facts that exist', () => {
    const notIn = new Set(facts.file.notInReport.map((n) => n.id));
    for (const a of ASSUMPTIONS) {
      for (const n of a.fills) expect(notIn.has(n), `${a.id} fills ${n}`).toBe(true);
      for (const id of `${a.en} ${a.reasonEn}`.match(/\bF\d+\b/g) ?? []) expect(facts.byId.has(id), `${a.id} cites ${id}`).toBe(true);
    }
  });
});
