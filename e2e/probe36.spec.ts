import { test } from './fixtures.ts';
test('first', async ({ page }) => {
  await page.goto(`./`);
  await page.getByTestId('stage').waitFor({ timeout: 30000 });
  await page.waitForTimeout(3000);
  console.log(JSON.stringify(await page.evaluate(() => {
    const b = (s: string) => { const e = document.querySelector(s); if (!e) return null; const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom), Math.round(r.left), Math.round(r.right)]; };
    const toks = [...document.querySelectorAll('.stage-root .hp-token')].map(e => e.getBoundingClientRect().bottom);
    return { header: b('.site-header'), story: b('.story'), stageView: b('.story-picture .stage-view'), h2: b('#stage-h'), hc: b('.story-picture .hc'), caption: b('.story-picture .stage-caption'), root: b('.story-picture .stage-root'), row: b('.story-picture .stage-row'), micro: b('.hp-micro'), tokensMaxBottom: Math.max(...toks), picker: b('.story-picture .picker'), scrubBar: b('[data-testid=scrub-bar]'), stageSvg: b('.stage-svg') };
  })));
});
