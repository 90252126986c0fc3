import { describe, expect, it } from 'vitest';
import { parseRgb, themeRgb } from './theme.ts';

describe('theme tokens for canvas drawings', () => {
  it('reads #rgb, #rrggbb and rgb() colours, and nothing else', () => {
    expect(parseRgb('#f4f2ee')).toEqual([244, 242, 238]);
    expect(parseRgb(' #fff ')).toEqual([255, 255, 255]);
    expect(parseRgb('rgb(31, 33, 39)')).toEqual([31, 33, 39]);
    expect(parseRgb('rgb(31 33 39 / 0.5)')).toEqual([31, 33, 39]);
    expect(parseRgb('red')).toBeNull();
  });
  it('falls back where there is no document', () => {
    expect(themeRgb('--canvas', [1, 2, 3])).toEqual([1, 2, 3]);
  });
});
