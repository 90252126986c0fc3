/**
 * Text widths in the type the chart draws, measured on a canvas (the SVG's own font family, weight
 * and size), so that labels are laid out and axis ticks dropped by what they measure, not by an
 * average character width ("Thu 10 Sep" was cut to "Thu 10 S" on an estimate).
 */
export type MeasureText = (text: string) => number;

/** A measurer for `element`'s font family at `weight` and `sizePx`; an estimate where no canvas is available. */
export function textMeasurer(element: Element, weight: number, sizePx: number): MeasureText {
  const family = getComputedStyle(element).fontFamily || 'sans-serif';
  const ctx = typeof document !== 'undefined' ? document.createElement('canvas').getContext('2d') : null;
  if (!ctx) return (text) => text.length * sizePx * 0.62;
  ctx.font = `${weight} ${sizePx}px ${family}`;
  const cache = new Map<string, number>();
  return (text) => {
    let w = cache.get(text);
    if (w === undefined) {
      w = ctx.measureText(text).width;
      cache.set(text, w);
    }
    return w;
  };
}
