/**
 * Where the report's milestones are written under the timeline's lanes: in words with their time
 * ("13:22 incident declared") or their day ("8 Sep reported via HackerOne"), each after its fact id
 * drawn as a badge, in a few rows, so that no two labels overlap and none leaves the drawing at any
 * zoom or width.
 *
 * Pure: the caller measures text (a canvas in the page, an estimate in tests). A label tries its
 * forms from the longest (words) to the shortest (the time or day alone), in each row from the top;
 * it starts at its milestone and is pulled left only where it would run past the right edge. One
 * that fits nowhere joins a label already placed, which then reads "… +1" (its tooltip lists both):
 * every milestone stays on the chart, alone or counted.
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
}

export interface PlacedMilestoneLabel {
  key: string;
  anchor: number;
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
}

/** Space inside the badge on each side of its id, and between the badge and the text. */
export const BADGE_PAD = 3;
export const BADGE_TEXT_GAP = 4;

type Box = PlacedMilestoneLabel & { forms: readonly string[]; form: number };

export function layoutMilestoneLabels(requests: readonly MilestoneLabelRequest[], o: MilestoneLabelLayout): PlacedMilestoneLabel[] {
  const gap = o.gap ?? 6;
  const sorted = [...requests].sort((a, b) => a.anchor - b.anchor || a.key.localeCompare(b.key));
  const rows: Box[][] = Array.from({ length: Math.max(1, o.rows) }, () => []);
  const badgeWidth = (id: string) => o.measureBadge(id) + 2 * BADGE_PAD;
  const widthOf = (id: string, text: string) => badgeWidth(id) + BADGE_TEXT_GAP + o.measureText(text);
  // Where a box of width w starts for a milestone at `anchor`: at it, or pulled left to end by the right edge.
  const startFor = (anchor: number, w: number) => Math.max(o.left, Math.min(anchor, o.right - w));
  const rowEnd = (row: Box[]) => (row.length ? row[row.length - 1]!.x + row[row.length - 1]!.width : -Infinity);

  const fits = (row: Box[], x: number, w: number) => x >= rowEnd(row) + gap && x + w <= o.right + 1e-9 && x >= o.left - 1e-9;

  const place = (req: MilestoneLabelRequest): boolean => {
    for (let form = 0; form < req.forms.length; form++) {
      const text = req.forms[form]!;
      const w = widthOf(req.badge, text);
      for (let r = 0; r < rows.length; r++) {
        const x = startFor(req.anchor, w);
        if (!fits(rows[r]!, x, w)) continue;
        rows[r]!.push({ key: req.key, anchor: req.anchor, x, width: w, row: r, badge: req.badge, badgeWidth: badgeWidth(req.badge), text, title: req.title, gathered: [], forms: req.forms, form });
        return true;
      }
    }
    return false;
  };

  // Joins milestones to the last label of a row: that label's "+n" grows by as many, and its box
  // may shrink to a shorter form or move left (never past the label before it) to stay inside.
  type Pending = { keys: string[]; title: string };
  const gatherInto = (row: Box[], pending: Pending[]): boolean => {
    const host = row[row.length - 1]!;
    const before = row.length > 1 ? rowEnd(row.slice(0, -1)) + gap : o.left;
    const keys = pending.flatMap((p) => p.keys);
    const n = host.gathered.length + keys.length;
    for (let form = host.form; form < host.forms.length; form++) {
      const text = `${host.forms[form]!} +${n}`;
      const w = widthOf(host.badge, text);
      const x = Math.max(before, startFor(host.anchor, w));
      if (x + w > o.right + 1e-9) continue;
      Object.assign(host, { x, width: w, text, form, title: [host.title, ...pending.map((p) => p.title)].join('\n'), gathered: [...host.gathered, ...keys] });
      return true;
    }
    return false;
  };
  const gather = (req: MilestoneLabelRequest): boolean => {
    const own: Pending = { keys: [req.key], title: req.title };
    const order = rows.map((row, r) => ({ r, end: rowEnd(row) })).filter((c) => c.end > -Infinity).sort((a, b) => a.end - b.end);
    for (const { r } of order) if (gatherInto(rows[r]!, [own])) return true;
    // No row's last label has room for one more: fold the last labels of the row that ends first
    // into the one before them until it has (a single label's time or day and "+n" always fits).
    const row = rows[order[0]?.r ?? 0]!;
    let pending = [own];
    while (row.length > 0) {
      if (gatherInto(row, pending)) return true;
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
  return rows.flat().map(({ forms: _f, form: _form, ...p }) => p);
}
