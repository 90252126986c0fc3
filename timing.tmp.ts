import { chromium } from '@playwright/test';
const [,, url] = process.argv;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--disable-background-networking'] });
for (let i = 0; i < 2; i++) {
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
const t0 = Date.now(); const log: string[] = [];
page.on('request', (r) => { log.push(`${Date.now() - t0} ${new URL(r.url()).pathname}`); });
page.on('console', (m) => log.push(`${Date.now() - t0} console ${m.text()}`));
await page.goto(url!);
await page.waitForFunction(() => { const g = [...document.querySelectorAll('canvas[data-node]')] as HTMLCanvasElement[]; return !!document.querySelector('[role="slider"]') && g.length > 0 && g.every((c) => c.dataset.drawnT !== undefined); }, null, { timeout: 60000, polling: 'raf' });
log.push(`${Date.now() - t0} USABLE`);
await page.waitForTimeout(1000);
const marks = await page.evaluate(() => [...performance.getEntriesByType('resource').map((m: any) => `${m.name.split('/').pop()} start ${m.startTime.toFixed(0)} end ${m.responseEnd.toFixed(0)}`), ...performance.getEntriesByType('paint').map((m) => `${m.name}@${m.startTime.toFixed(0)}`), ...performance.getEntriesByType('mark').map((m) => `${m.name}@${m.startTime.toFixed(0)}`)].join('\n'));
if (i === 1) console.log(log.join('\n') + '\nmarks ' + marks);
await page.close();
}
await browser.close();
