/**
 * Colours come only from the theme: the tokens of theme.css (and theme.ts, which reads them for
 * canvas code) and the drawing palette (palette.ts). Any other file of the page that writes a colour
 * (#rgb, #rrggbb, rgb(…), hsl(…)) fails here, with the file and line named.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OI, RELATION_COLOURS } from './palette.ts';
import { parseRgb } from './theme.ts';

const APP = fileURLToPath(new URL('../', import.meta.url));
const THEME_FILES = new Set(['ui/theme.css', 'ui/theme.ts', 'ui/palette.ts']);

/** A colour written in code: #rgb(a) or #rrggbb(aa) (a pull request's "#38704" has five digits), rgb()/hsl() with a value. */
const COLOUR = /#(?:[0-9a-f]{8}|[0-9a-f]{6}|[0-9a-f]{3,4})\b|\b(?:rgba?|hsla?)\(\s*(?:\d|\.\d|\$\{)/gi;

function colourLiterals(source: string): { line: number; text: string }[] {
  return source.split('\n').flatMap((line, i) => [...line.matchAll(COLOUR)].map((m) => ({ line: i + 1, text: m[0] })));
}

function pageFiles(dir = APP): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return pageFiles(p);
    return /\.(tsx?|css)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

const themeCss = readFileSync(new URL('./theme.css', import.meta.url), 'utf8');
const token = (name: string) => parseRgb(new RegExp(`${name}:\\s*([^;]+);`).exec(themeCss)?.[1] ?? '');

describe('colours only from the theme', () => {
  it('finds a colour written in code, and not a pull request number', () => {
    expect(colourLiterals("ctx.fillStyle = '#d55e00';\nbox-shadow: 0 1px 3px rgb(0 0 0 / 0.3);\nfill: `rgb(${r})`; PR #38704").map((c) => c.text)).toEqual(['#d55e00', 'rgb(0', 'rgb(${']);
    expect(colourLiterals('const dot = rgba(...GRID_DOT.light); color: var(--oi-blue);')).toEqual([]);
  });

  it('has no colour outside theme.css, theme.ts and palette.ts', () => {
    const found = pageFiles()
      .map((p) => relative(APP, p))
      .filter((p) => !THEME_FILES.has(p))
      .flatMap((p) => colourLiterals(readFileSync(join(APP, p), 'utf8')).map((c) => `src/app/${p}:${c.line} ${c.text}`));
    expect(found).toEqual([]);
  });

  it('writes the Okabe–Ito and relation tokens of theme.css as palette.ts draws them', () => {
    for (const [name, rgb] of Object.entries(OI)) if (themeCss.includes(`--oi-${name}:`)) expect(token(`--oi-${name}`), name).toEqual(rgb);
    expect(token('--oi-blue')).toEqual(RELATION_COLOURS.own);
    expect(token('--oi-green')).toEqual(RELATION_COLOURS.placeholder);
    expect(token('--oi-vermilion')).toEqual(RELATION_COLOURS.foreign);
    expect(token('--rel-reserved')).toEqual(RELATION_COLOURS.reserved);
  });
});
