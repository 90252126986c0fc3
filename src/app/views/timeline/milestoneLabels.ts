/**
 * Where the report's milestones are written under the timeline's lanes: in words with their time
 * ("13:22 incident declared") or their day ("8 Sep reported via HackerOne"), each after its fact id
 * drawn as a badge, in a few rows, so that no two labels overlap and none leaves the drawing at any
 * zoom or width.
 *
 * Pure: the caller measures text (a canvas in the page, an estimate in tests). The minutes are
 * placed first (they are the report's precise times), then the days. A label tries its forms from
 * the longest (words) to the shortest (the time or day alone), in each row from the top; a minute's
 * starts at its line, pulled left only where it would run past the right edge, a day's anywhere in
 * its band. One that fits nowhere joins a label already placed, which then reads "… +1 more" (or
 * "… +1" where the words do not fit; its tooltip lists both): every milestone stays on the chart,
 * alone or counted.
 */

export interface MilestoneLabelRequest {
  key: string;
  /** Where the milestone is, in px: its minute's line, or the visible start of its day's band. */
  anchor: number;
  /** The fact id, drawn as a badge before the text. */
  badge: string;
  /** The label's forms, longest first: "13:22 incident declared", then "13:22". At least one. */
  forms: readonly string[];
  /** The whole label for the tooltip (fact id, words, date, how the date follows from the report). */
  title: string;
  /**
   * A day's band: the label may start anywhere in it, up to this px (its visible end), not only at
   * its start. A minute's label starts at its line.
   */
  spanEnd?: number;
}

export interface PlacedMilestoneLabel {
  key: string;
  anchor: number;
  /** Where its leader line stands: the minute's line, or the label's own start inside its day's band. */
  leader: number;
  /** Left edge of the label's box (the badge's left edge), in px. */
  x: number;
  /** Width of the whole box: badge, space, text. */
  width: number;
  row: number;
  badge: string;
  badgeWidth: number;
  text: string;
  /** The tooltip: this label's title, then those of the milestones it counts in its "+n". */
  title: string;
  /** Keys of the milestones gathered into this label's "+n". */
  gathered: string[];
}

export interface MilestoneLabelLayout {
  /** Leftmost and rightmost px a label may occupy (the drawing's edges, less a margin). */
  left: number;
  right: number;
  rows: number;
  /** Width of a string of label text, in px. */
  measureText: (text: string) => number;
  /** Width of a fact id in the badge's type, in px. */
  measureBadge: (id: string) => number;
  /** Space kept between two labels of a row, in px. */
  gap?: number;
  /**
   * What a label's count says in words, in the page's language ("+4 more", « +4 autres »); where that
   * does not fit, the count alone ("+4"), which the tooltip explains.
   */
  more?: (n: number) => string;
}

/** Space inside the badge on each side of its id, and between the badge and the text. */
export const BADGE_PAD = 3;
export const BADGE_TEXT_GAP = 4;

type Box = PlacedMilestoneLabel & { forms: readonly string[]; form: number; day: boolean };

export function layoutMilestoneLabels(requests: readonly MilestoneLabelRequest[], o: MilestoneLabelLayout): PlacedMilestoneLabel[] {
  const gap = o.gap ?? 6;
  const isDay = (r: MilestoneLabelRequest) => r.spanEnd !== undefined;
  const sorted = [...requests].sort((a, b) => Number(isDay(a)) - Number(isDay(b)) || a.anchor - b.anchor || a.key.localeCompare(b.key));
  // Each row's boxes, kept in order of x.
  const rows: Box[][] = Array.from({ length: Math.max(1, o.rows) }, () => []);
  const badgeWidth = (id: string) => o.measureBadge(id) + 2 * BADGE_PAD;
  const widthOf = (id: string, text: string) => badgeWidth(id) + BADGE_TEXT_GAP + o.measureText(text);
  // Where a box of width w starts for a milestone at `anchor`: at it, or pulled left to end by the right edge.
  const startFor = (anchor: number, w: number) => Math.max(o.left, Math.min(anchor, o.right - w));
  const clear = (row: Box[], x: number, w: number, except?: Box) => row.every((b) => b === except || x + w + gap <= b.x + 1e-9 || b.x + b.width + gap <= x + 1e-9);
  const inside = (x: number, w: number) => x >= o.left - 1e-9 && x + w <= o.right + 1e-9;

  /** The first start in `row` for a box of width w: at its anchor, or (a day) after a box already there, still in the band. */
  const startIn = (row: Box[], req: MilestoneLabelRequest, w: number): number | null => {
    const x0 = startFor(req.anchor, w);
    const last = req.spanEnd === undefined ? x0 : Math.max(x0, Math.min(req.spanEnd, o.right) - w);
    for (const x of [x0, ...row.map((b) => b.x + b.width + gap).filter((x) => x > x0 && x <= last)].sort((a, b) => a - b)) if (inside(x, w) && clear(row, x, w)) return x;
    return null;
  };

  const place = (req: MilestoneLabelRequest): boolean => {
    for (let form = 0; form < req.forms.length; form++) {
      const text = req.forms[form]!;
      const w = widthOf(req.badge, text);
      for (let r = 0; r < rows.length; r++) {
        const x = startIn(rows[r]!, req, w);
        if (x === null) continue;
        const box: Box = { key: req.key, anchor: req.anchor, leader: isDay(req) ? x : req.anchor, x, width: w, row: r, badge: req.badge, badgeWidth: badgeWidth(req.badge), text, title: req.title, gathered: [], forms: req.forms, form, day: isDay(req) };
        rows[r]!.push(box);
        rows[r]!.sort((a, b) => a.x - b.x);
        return true;
      }
    }
    return false;
  };

  // Joins milestones to a label already placed: its "+n" grows by as many, and its box may shrink
  // to a shorter form or move left (never onto another) to stay inside the drawing.
  type Pending = { keys: string[]; title: string };
  const gatherInto = (row: Box[], host: Box, pending: Pending[]): boolean => {
    const keys = pending.flatMap((p) => p.keys);
    const n = host.gathered.length + keys.length;
    // The count in words first, in any of the label's forms; then the bare count.
    for (const count of [...(o.more ? [o.more(n)] : []), `+${n}`]) {
      for (let form = host.form; form < host.forms.length; form++) {
        const text = `${host.forms[form]!} ${count}`;
        const w = widthOf(host.badge, text);
        // At its place, or as far left as it must go to end by the right edge.
        for (const x of [host.x, Math.min(host.x, o.right - w)]) {
          if (!inside(x, w) || !clear(row, x, w, host)) continue;
          Object.assign(host, { x, width: w, text, form, leader: host.day ? x : host.anchor, title: [host.title, ...pending.map((p) => p.title)].join('\n'), gathered: [...host.gathered, ...keys] });
          row.sort((a, b) => a.x - b.x);
          return true;
        }
      }
    }
    return false;
  };
  const gather = (req: MilestoneLabelRequest): boolean => {
    const own: Pending = { keys: [req.key], title: req.title };
    // The nearest label first.
    const hosts = rows.flatMap((row) => row.map((b) => ({ row, b }))).sort((a, b) => Math.abs(a.b.anchor - req.anchor) - Math.abs(b.b.anchor - req.anchor));
    for (const { row, b } of hosts) if (gatherInto(row, b, [own])) return true;
    // No label has room for one more: fold the last labels of a row into the one before them
    // until it has (a single label's time or day and "+n" always fits).
    const row = rows.find((r) => r.length > 0) ?? rows[0]!;
    let pending = [own];
    while (row.length > 0) {
      if (gatherInto(row, row[row.length - 1]!, pending)) return true;
      if (row.length === 1) return false;
      const last = row.pop()!;
      pending = [{ keys: [last.key, ...last.gathered], title: last.title }, ...pending];
    }
    return false;
  };

  for (const req of sorted) {
    if (req.forms.length === 0) throw new Error(`milestone label ${req.key} has no text`);
    if (!place(req) && !gather(req)) throw new Error(`milestone label ${req.key} fits nowhere between ${o.left} and ${o.right} px`);
  }
  return rows.flat().map(({ forms: _f, form: _form, day: _d, ...p }) => p);
}
