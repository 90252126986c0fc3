import { describe, expect, test } from 'vitest';
import { join, resolve } from 'node:path';
import { MESSAGES } from '../src/app/i18n/messages.ts';
import { readFileSync, readdirSync } from 'node:fs';
import { KEY_TEMPLATE, firstScreenKeys, staticGraph } from './catalogueChunks.ts';

describe('the catalogue split between the first screen and later', () => {
  const graph = staticGraph(resolve(import.meta.dirname, '../src/main.tsx'));
  const files = [...graph.keys()].map((f) => f.replace(/.*\/src\//, 'src/'));

  test('the static graph is what the page runs first: no lazily loaded view, no type-only import', () => {
    expect(files).toContain('src/app/App.tsx');
    expect(files).toContain('src/app/views/timeline/Timeline.tsx');
    for (const lazy of ['src/app/walkthrough/Walkthrough.tsx', 'src/app/views/verify/VerifyPanel.tsx', 'src/app/views/transfer/TransferView.tsx', 'src/app/views/story/ExploreContents.tsx'])
      expect(files).not.toContain(lazy);
    // Imported by the page for its types only.
    expect(files).not.toContain('src/app/i18n/messages.ts');
  });

  test('a key written in a first-screen file, or built there by a template, is in the first part', () => {
    const keys = ['timelineTitle', 'notice.a', 'notice.b', 'vpTitle', 'switch.a.label', 'switch.b.label', 'switch.a.hint', 'prop.x', 'prop.y'];
    const first = firstScreenKeys(["t('timelineTitle'); t(`notice.${kind}`); t(`switch.${s.key}.label`)"], keys);
    expect([...first]).toEqual(['timelineTitle', 'notice.a', 'notice.b', 'switch.a.label', 'switch.b.label']);
    // A placeholder that is not a plain expression keeps the whole namespace.
    expect([...firstScreenKeys(["t(`prop.${p ?? 'x'}`)"], keys)]).toEqual(['prop.x', 'prop.y']);
  });

  test('the page’s own first-screen keys are there, the verify panel’s are not', () => {
    const first = firstScreenKeys([...graph].filter(([f]) => !f.endsWith('messages.ts')).map(([, s]) => s), Object.keys(MESSAGES.en));
    expect(first.has('scrubberLabel')).toBe(true);
    expect([...first].some((k) => k.startsWith('switch.'))).toBe(true);
    expect([...first].some((k) => k.startsWith('vpConfig.'))).toBe(false);
  });

  test('every key the page builds from a template is built from a namespace ending at a dot, which the split recognises', () => {
    const app = resolve(import.meta.dirname, '../src/app');
    const sources = (readdirSync(app, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
    let built = 0;
    for (const file of sources) {
      const source = readFileSync(join(app, file), 'utf8');
      for (const m of source.matchAll(/\b(?:t|translate)\((?:[^,()`]+,\s*)?`([^`$]*)\$\{|`([^`$]*)\$\{[^`]*`\s+as\s+MessageKey/g)) {
        built++;
        const fixed = `\`${m[1] ?? m[2]}\${`;
        expect([...fixed.matchAll(KEY_TEMPLATE)].length, `${file}: ${fixed}`).toBe(1);
      }
    }
    expect(built).toBeGreaterThan(5);
  });
});
