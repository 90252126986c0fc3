/**
 * The incident as data: the schema of public/facts.json and its parser.
 *
 * Three kinds of entry, typed apart so a view cannot mix them up: `fact` (from the report, with its
 * id from FACTS.md and the French sentence it rests on, quoted verbatim), `not-in-report` (what the
 * report leaves open: anything the project shows about it is a model, labelled), and `background`
 * (public sources, with their address; never Cloudflare's report).
 */
import * as v from 'valibot';

const nonEmpty = v.pipe(v.string(), v.trim(), v.nonEmpty());
const isoDate = v.pipe(v.string(), v.isoDate());

export const FigureSchema = v.strictObject({
  /** Stable name the code looks figures up by, e.g. `affectedResponses`. */
  key: v.pipe(v.string(), v.regex(/^[a-z][A-Za-z]*$/)),
  value: v.pipe(v.number(), v.finite()),
  unit: v.picklist(['tokens', 'responses', 'minutes']),
  labelEn: nonEmpty,
  labelFr: nonEmpty,
  /** The report rounds ("environ"): show it as approximate. */
  approximate: v.optional(v.literal(true)),
  /** The report states a bound, not a value: `over` 681,280, `under` 25 minutes. */
  bound: v.optional(v.picklist(['over', 'under'])),
});

export const MilestoneSchema = v.pipe(
  v.strictObject({
    key: v.pipe(v.string(), v.regex(/^[a-z][A-Za-z]*$/)),
    date: isoDate,
    /** Only where the report gives the minute; never invented. */
    time: v.optional(v.pipe(v.string(), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/))),
    precision: v.picklist(['day', 'minute']),
    labelEn: nonEmpty,
    labelFr: nonEmpty,
    /** A few words for the timeline's label beside the date or time ("incident declared"). */
    shortEn: nonEmpty,
    shortFr: nonEmpty,
    /** How the date or time follows from the report when it is not stated outright. */
    derivedEn: v.optional(nonEmpty),
    derivedFr: v.optional(nonEmpty),
  }),
  v.check((m) => (m.precision === 'minute') === (m.time !== undefined), 'a milestone has a time exactly when its precision is minute'),
);

export const FactSchema = v.strictObject({
  kind: v.literal('fact'),
  id: v.pipe(v.string(), v.regex(/^F\d+$/)),
  en: nonEmpty,
  fr: nonEmpty,
  /** The report's sentence(s), verbatim. */
  quote: nonEmpty,
  figures: v.optional(v.array(FigureSchema)),
  milestones: v.optional(v.array(MilestoneSchema)),
});

export const NotInReportSchema = v.strictObject({
  kind: v.literal('not-in-report'),
  id: v.pipe(v.string(), v.regex(/^N\d+$/)),
  en: nonEmpty,
  fr: nonEmpty,
});

export const BackgroundSchema = v.strictObject({
  kind: v.literal('background'),
  id: v.pipe(v.string(), v.regex(/^B\d+$/)),
  topic: v.picklist(['sglang', 'related-incident']),
  /** As precise as the source: `2026-08-29`, `2017-02`. */
  date: v.optional(v.pipe(v.string(), v.regex(/^\d{4}(-\d{2}(-\d{2})?)?$/))),
  en: nonEmpty,
  fr: nonEmpty,
  url: v.pipe(v.string(), v.url(), v.startsWith('https://')),
  moreUrls: v.optional(v.array(v.pipe(v.string(), v.url(), v.startsWith('https://')))),
});

function uniqueIds<T extends { id: string }>(entries: T[]): boolean {
  return new Set(entries.map((e) => e.id)).size === entries.length;
}

export const FactsFileSchema = v.pipe(
  v.strictObject({
    version: v.literal(1),
    source: v.strictObject({ title: nonEmpty, language: v.literal('fr'), noteEn: nonEmpty, noteFr: nonEmpty }),
    facts: v.pipe(v.array(FactSchema), v.minLength(1), v.check((xs) => uniqueIds(xs), 'fact ids must be unique')),
    notInReport: v.pipe(v.array(NotInReportSchema), v.check((xs) => uniqueIds(xs), 'not-in-report ids must be unique')),
    background: v.pipe(v.array(BackgroundSchema), v.check((xs) => uniqueIds(xs), 'background ids must be unique')),
  }),
  v.check((f) => {
    const keys = f.facts.flatMap((x) => [...(x.figures ?? []).map((g) => `figure:${g.key}`), ...(x.milestones ?? []).map((m) => `milestone:${m.key}`)]);
    return new Set(keys).size === keys.length;
  }, 'figure and milestone keys must be unique across facts'),
);

export type Figure = v.InferOutput<typeof FigureSchema>;
export type Milestone = v.InferOutput<typeof MilestoneSchema>;
export type Fact = v.InferOutput<typeof FactSchema>;
export type NotInReport = v.InferOutput<typeof NotInReportSchema>;
export type Background = v.InferOutput<typeof BackgroundSchema>;
export type FactsFile = v.InferOutput<typeof FactsFileSchema>;

/** A figure or milestone together with the fact that states it, so a view can always cite it. */
export type Sourced<T> = T & { factId: string; quote: string };

export class FactsFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`facts file is invalid: ${problems.join('; ')}`);
    this.name = 'FactsFileError';
  }
}

export function parseFactsFile(value: unknown): FactsFile {
  const result = v.safeParse(FactsFileSchema, value);
  if (!result.success) {
    throw new FactsFileError(result.issues.map((i) => `${v.getDotPath(i) ?? '(top level)'}: ${i.message}`));
  }
  return result.output;
}

/** Lookups by key; every figure or milestone the app shows comes from here, with its fact id. */
export class FactIndex {
  readonly byId: ReadonlyMap<string, Fact>;
  private readonly figures = new Map<string, Sourced<Figure>>();
  private readonly milestones = new Map<string, Sourced<Milestone>>();

  constructor(readonly file: FactsFile) {
    this.byId = new Map(file.facts.map((f) => [f.id, f]));
    for (const f of file.facts) {
      for (const g of f.figures ?? []) this.figures.set(g.key, { ...g, factId: f.id, quote: f.quote });
      for (const m of f.milestones ?? []) this.milestones.set(m.key, { ...m, factId: f.id, quote: f.quote });
    }
  }

  figure(key: string): Sourced<Figure> {
    const g = this.figures.get(key);
    if (!g) throw new Error(`facts: no figure ${JSON.stringify(key)}`);
    return g;
  }

  milestone(key: string): Sourced<Milestone> {
    const m = this.milestones.get(key);
    if (!m) throw new Error(`facts: no milestone ${JSON.stringify(key)}`);
    return m;
  }

  /** Milestones in time order; day-precision ones sort at the start of their day. */
  timeline(): Sourced<Milestone>[] {
    return [...this.milestones.values()].sort((a, b) => milestoneStartMs(a) - milestoneStartMs(b) || a.key.localeCompare(b.key));
  }
}

/** UTC ms of a milestone's start: its minute, or 00:00 of its day when the report gives only the day. */
export function milestoneStartMs(m: Pick<Milestone, 'date' | 'time'>): number {
  return Date.parse(`${m.date}T${m.time ?? '00:00'}:00Z`);
}
