import { chromium } from '@playwright/test';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--disable-background-networking'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
await page.addInitScript(() => { const W = window.Worker; (window as any).Worker = function (u: any, o: any) { console.log('WORKER ' + u + '\n' + new Error().stack); return new W(u, o); }; });
page.on('console', (m) => console.log(m.type(), m.text().split('\n')[0]));
await page.goto('http://127.0.0.1:5402/?bench');
await page.waitForTimeout(8000);
await browser.close();
