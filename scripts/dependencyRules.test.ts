/**
 * The dependency rules (.dependency-cruiser.cjs) catch an import that points up: a module is planted
 * for the time of one check, the check is run on it, and it must fail naming the rule.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs the check on one planted module (and what it imports directly); the check's output and exit status. */
function checkPlanted(path: string, source: string): { status: number; output: string } {
  writeFileSync(`${root}${path}`, source);
  try {
    const output = execFileSync(`${root}node_modules/.bin/depcruise`, [path, '--config', '.dependency-cruiser.cjs', '--max-depth', '1'], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
    return { status: 0, output };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { status: err.status, output: `${err.stdout}${err.stderr}` };
  } finally {
    rmSync(`${root}${path}`, { force: true });
  }
}

describe('the dependency check', () => {
  it('fails on the video importing the shell (src/app/render → src/app/App.tsx)', () => {
    const r = checkPlanted('src/app/render/plantedUpwardImport.ts', "import { App } from '../App.tsx';\nexport const planted = App;\n");
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/error render-imports-only-lower-tiers: src\/app\/render\/plantedUpwardImport\.ts → src\/app\/App\.tsx/);
  }, 60_000);

  it('fails on a script importing an end-to-end spec (scripts/ → e2e/)', () => {
    const r = checkPlanted('scripts/plantedUpwardImport.ts', "import { test } from '../e2e/fixtures.ts';\nexport const planted = test;\n");
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/error scripts-imports-only-lower-tiers: scripts\/plantedUpwardImport\.ts → e2e\/fixtures\.ts/);
  }, 60_000);

  it('fails on a tool importing the page (tools/ → src/app)', () => {
    const r = checkPlanted('tools/plantedUpwardImport.ts', "import { DEFAULT_STATE } from '../src/app/state/store.ts';\nexport const planted = DEFAULT_STATE;\n");
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/error node-programs-know-no-page: tools\/plantedUpwardImport\.ts → src\/app\/state\/store\.ts/);
  }, 60_000);

  it('fails on a module outside every tier (a new folder must be placed)', () => {
    const r = checkPlanted('src/app/plantedOutsideEveryTier.ts', "import { DEFAULT_STATE } from './state/store.ts';\nexport const planted = DEFAULT_STATE;\n");
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/error every-module-in-a-tier: src\/app\/plantedOutsideEveryTier\.ts → src\/app\/state\/store\.ts/);
  }, 60_000);

  it('fails on the transformer importing the engine over it, types only (src/engine/model → src/engine)', () => {
    const r = checkPlanted('src/engine/model/plantedUpwardImport.ts', "import type { KvPool } from '../kvPool.ts';\nexport type Planted = KvPool;\n");
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/error engine-model-imports-only-lower-tiers: src\/engine\/model\/plantedUpwardImport\.ts → src\/engine\/kvPool\.ts/);
  }, 60_000);

  it('fails on a chapter naming a type of the timeline that plays it (walkthrough/chapters → walkthrough)', () => {
    const r = checkPlanted('src/app/walkthrough/chapters/plantedUpwardImport.ts', "import type { Shown } from '../timeline.ts';\nexport type Planted = Shown;\n");
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/error walkthrough-chapters-imports-only-lower-tiers: src\/app\/walkthrough\/chapters\/plantedUpwardImport\.ts → src\/app\/walkthrough\/timeline\.ts/);
  }, 60_000);

  it('passes the same modules importing downward', () => {
    const r = checkPlanted('src/app/render/plantedDownwardImport.ts', "import { DEFAULT_STATE } from '../state/store.ts';\nexport const planted = DEFAULT_STATE;\n");
    expect(r.output).toMatch(/no dependency violations/);
    expect(r.status).toBe(0);
  }, 60_000);
});
