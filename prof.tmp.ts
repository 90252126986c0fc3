import { chromium } from '@playwright/test';
import { writeFileSync } from 'node:fs';
const [,, url, out] = process.argv;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--disable-background-networking'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
const t0 = Date.now();
await page.goto(url!);
await page.waitForFunction(() => { const g = [...document.querySelectorAll('canvas[data-node]')] as HTMLCanvasElement[]; return !!document.querySelector('[role="slider"]') && g.length > 0 && g.every((c) => c.dataset.drawnT !== undefined); }, null, { timeout: 60000, polling: 'raf' });
console.log('usable', Date.now() - t0);
const { profile } = await cdp.send('Profiler.stop');
writeFileSync(out!, JSON.stringify(profile));
// self time by function
const self = new Map<string, number>(); const byId = new Map(profile.nodes.map((n: any) => [n.id, n]));
const dt = profile.timeDeltas; const counts = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) counts.set(profile.samples[i], (counts.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
for (const [id, us] of counts) { const n: any = byId.get(id); const cf = n.callFrame; const k = `${cf.functionName || '(anon)'} ${cf.url.split('/').pop()}:${cf.lineNumber}:${cf.columnNumber}`; self.set(k, (self.get(k) ?? 0) + us); }
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(6)} ms ${k}`).join('\n'));
await browser.close();
