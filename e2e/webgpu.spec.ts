import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { gpuCheckBundle } from '../tools/gpuCheckBundle.ts';
import type { ModelAgreementReport } from '../src/gpu/modelAgreement.ts';

/**
 * The decode backends in a real browser. Chromium here runs with --enable-unsafe-webgpu (see
 * playwright.config.ts), which gives a SwiftShader adapter: correct WebGPU, CPU speed.
 * `?gpu-fault=` forces each failure path (src/app/gpu/decodeProtocol.ts).
 */

async function ready(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByTestId('backend-running')).not.toHaveText(/starting/, { timeout: 90_000 });
}

async function decode(page: Page) {
  await page.getByRole('button', { name: /^Decode 24 tokens/ }).click();
  await expect(page.getByRole('button', { name: /^Decode 24 tokens/ })).toBeEnabled({ timeout: 60_000 });
  await expect(page.getByTestId('decode-result')).toBeVisible();
  const text = (await page.getByTestId('decode-result-text').textContent())!.trim();
  expect(text.split(' ').length).toBeGreaterThanOrEqual(12);
  return { text, backend: await page.getByTestId('decode-result-backend').textContent() };
}

test.describe('decode backends', () => {
  test('WebGPU and the JS engine agree on the same inputs, random ones included', async ({ page }) => {
    // Fifteen decodes on each backend (SwiftShader: WebGPU at CPU speed), a 1,048,576-token one among them.
    test.setTimeout(150_000);
    await ready(page, './?s=demo&view=response');
    await expect(page.getByTestId('backend-running')).toHaveText('WebGPU');
    await expect(page.getByTestId('backend-adapter')).toContainText(/\S/);
    await expect(page.getByTestId('backend-notice')).toBeEmpty();

    await page.getByRole('button', { name: 'Compare backends' }).click();
    const summary = page.getByTestId('compare-summary');
    await expect(summary).toBeVisible({ timeout: 120_000 });
    const rows = page.getByTestId('compare-table').locator('tbody tr');
    await expect(rows).toHaveCount(15);
    await expect(page.getByTestId('compare-table')).toContainText('1,048,576 tokens');
    await expect(page.getByTestId('compare-table')).toContainText('random spread');
    expect(await rows.filter({ hasText: /^random/ }).count()).toBe(13);
    for (const agrees of await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.agrees))) expect(agrees).toBe('yes');
    await expect(summary).toContainText('15 of 15 inputs agree');
    expect(Number(await page.getByTestId('compare-max-diff').textContent())).toBeLessThanOrEqual(1e-4);
  });

  test('a person can switch backends with the keyboard and both decode the same text', async ({ page }) => {
    await ready(page, './?s=demo&view=response');
    const gpuRun = await decode(page);
    expect(gpuRun.backend).toBe('WebGPU');

    const webgpu = page.getByRole('radio', { name: /WebGPU/ });
    await webgpu.focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('radio', { name: /JS engine/ })).toBeChecked();
    await expect(page.getByTestId('backend-running')).toHaveText('JS engine');
    const jsRun = await decode(page);
    expect(jsRun.backend).toBe('JS engine');
    expect(jsRun.text).toBe(gpuRun.text);

    await page.getByRole('radio', { name: /WebGPU/ }).check();
    await expect(page.getByTestId('backend-running')).toHaveText('WebGPU');
    await expect(page.getByTestId('backend-notice')).toBeEmpty();
  });

  for (const [fault, notice] of [
    ['no-adapter', /no WebGPU adapter.*JS engine decodes instead/],
    ['shader', /decode shader failed to compile \(line \d+:\d+: .*atomicAddd.*JS engine decodes instead/],
  ] as const) {
    test(`gpu-fault=${fault}: the JS engine takes over with a notice`, async ({ page }) => {
      await ready(page, `./?s=demo&view=response&gpu-fault=${fault}`);
      await expect(page.getByTestId('backend-running')).toHaveText('JS engine');
      await expect(page.getByRole('status').filter({ hasText: 'Fallback' })).toHaveText(notice);
      const run = await decode(page);
      expect(run.backend).toBe('JS engine');
      // Asking for WebGPU again cannot succeed; the notice stays and JS keeps running (and checked).
      await page.getByRole('radio', { name: /WebGPU/ }).click();
      await expect(page.getByTestId('backend-running')).toHaveText('JS engine');
      await expect(page.getByTestId('backend-notice')).toHaveText(notice);
      await expect(page.getByRole('radio', { name: /JS engine/ })).toBeChecked();
    });
  }

  test('gpu-fault=lost: a device lost mid-decode loses nothing; the JS engine finishes it', async ({ page }) => {
    await ready(page, './?s=demo&view=response&gpu-fault=lost');
    await expect(page.getByTestId('backend-running')).toHaveText('WebGPU');
    const run = await decode(page);
    expect(run.backend).toBe('JS engine');
    await expect(page.getByTestId('decode-result')).toContainText('started on WebGPU, finished on the JS engine');
    await expect(page.getByRole('status').filter({ hasText: 'Fallback' })).toContainText(/device was lost during the decode.*finished on the JS engine/);
    await expect(page.getByTestId('backend-running')).toHaveText('JS engine');

    // The fallback's answer is the JS engine's answer, so it is what an unfaulted page decodes too.
    const clean = await page.context().newPage();
    await ready(clean, './?s=demo&view=response&backend=js');
    expect((await decode(clean)).text).toBe(run.text);
  });
});

test.describe('the trained transformer on WebGPU', () => {
  // The check is bundled here and added to a page of the built site, whose policy allows only its own scripts.
  test.use({ bypassCSP: true });
  test('the WGSL decode (paged attention over the block table, matrix products) agrees with the JS engine', async ({ page }) => {
    test.setTimeout(240_000);
    const bundle = await gpuCheckBundle();
    await page.goto('./?backend=js');
    await page.addScriptTag({ type: 'module', content: bundle });
    await page.waitForFunction(() => 'stalePagesModelCheck' in globalThis);
    const report = (await page.evaluate(async () => {
      const bytes = new Uint8Array(await (await fetch('./model/stale-pages-lm.bin')).arrayBuffer());
      const check = (globalThis as unknown as { stalePagesModelCheck: { agreement: (gpu: unknown, bytes: Uint8Array) => Promise<unknown> } }).stalePagesModelCheck;
      return check.agreement((navigator as unknown as { gpu: unknown }).gpu, bytes);
    })) as ModelAgreementReport;
    expect(report.cases).toHaveLength(3);
    console.log(`${report.adapter}: ${report.cases.map((c) => `${c.label}: max relative logit difference ${c.maxRelativeDifference.toExponential(2)}, tokens ${c.tokensAgree ? 'equal' : 'DIFFER'}`).join('; ')}`);
    for (const c of report.cases) {
      expect(c.tokensAgree, `${c.label}: JS ${c.jsTokens.join(',')} vs WebGPU ${c.gpuTokens.join(',')}`).toBe(true);
      expect(c.maxRelativeDifference, c.label).toBeLessThanOrEqual(1e-4);
    }
    expect(report.agrees).toBe(true);
  });
});
