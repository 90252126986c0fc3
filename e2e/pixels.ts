import type { Page } from '@playwright/test';

/**
 * How two PNG screenshots differ: the pixels that differ and the pixels in all (decoded in the page,
 * so encoder details do not count). Shots of different sizes differ everywhere (`differing` Infinity).
 * `edge` leaves out that many rows and columns at each side: an element's shot at a fractional
 * position starts and ends with a row that blends in whatever lies beside it, not its own picture.
 */
export async function pixelDifference(page: Page, a: Buffer, b: Buffer, { edge = 0 }: { edge?: number } = {}): Promise<{ differing: number; total: number }> {
  return page.evaluate(
    async ([x, y, e]) => {
      const decode = async (b64: string) => {
        const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
        const bmp = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
        const c = new OffscreenCanvas(bmp.width, bmp.height);
        const g = c.getContext('2d')!;
        g.drawImage(bmp, 0, 0);
        return g.getImageData(0, 0, bmp.width, bmp.height);
      };
      const [p, q] = [await decode(x), await decode(y)];
      const total = p.width * p.height;
      if (p.width !== q.width || p.height !== q.height) return { differing: Number.POSITIVE_INFINITY, total };
      let n = 0;
      // A channel off by a few levels is anti-aliasing at a sub-pixel offset, not a different picture.
      for (let y = e; y < p.height - e; y++) {
        for (let i = (y * p.width + e) * 4; i < (y * p.width + p.width - e) * 4; i += 4) {
          if (Math.abs(p.data[i]! - q.data[i]!) > 8 || Math.abs(p.data[i + 1]! - q.data[i + 1]!) > 8 || Math.abs(p.data[i + 2]! - q.data[i + 2]!) > 8) n++;
        }
      }
      return { differing: n, total };
    },
    [a.toString('base64'), b.toString('base64'), edge] as const,
  );
}
