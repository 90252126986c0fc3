/**
 * The readable vocabulary and the tenants' documents.
 *
 * Real tenants' data is unknown (fact F6: the report does not say what leaked), so every document here
 * is synthetic: short records built from templates, one topic per tenant, with the tenant's own name
 * and, for tenants that carry one, a canary marker (the report's method, F22). Token ids are small so
 * that a KV slot can store them in a Uint16Array.
 */
import { Prng } from './prng.ts';

/** What a never-written (zero-filled) or cleared KV slot decodes as. */
export const TOKEN_ZERO = 0;
/** The single token SGLang substituted for an aborted request's input. */
export const TOKEN_PLACEHOLDER = 1;
/** Start of sequence: the key of a prompt's first slot. */
export const TOKEN_BOS = 2;
export const SPECIAL_TOKEN_COUNT = 3;

const SPECIAL_WORDS = ['∅', '⟨placeholder⟩', '⟨bos⟩'];

/**
 * The most distinct words (special tokens included) the decode model takes: its weights are a
 * vocabulary × vocabulary table and its grouped decode a vocabulary² × 3 one (attention.ts), so 1,024
 * words cost 4 MB and ~60 MB; 4,096 would cost 64 MB and ~1 GB. Traces are checked against it.
 */
export const MAX_VOCABULARY = 1024;

/** Words shared by every tenant; a tenant's records mix these with its own name and canary. */
const SHARED_WORDS = [
  'the', '.', ',', ':', 'ref', 'for', 'of', 'to', 'and', 'is', 'on', 'from', 'with', 'due', 'by',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday',
  'invoice', 'amount', 'eur', 'usd', 'paid', 'overdue',
  'patient', 'reports', 'fever', 'cough', 'headache', 'prescribed', 'ibuprofen', 'amoxicillin', 'since',
  'function', 'parse', 'render', 'throws', 'null', 'timeout', 'when', 'input', 'empty', 'in', 'repo',
  'clause', 'contract', 'limits', 'liability', 'term', 'renewal', 'notice', 'days',
  'salary', 'review', 'bonus', 'manager', 'approved', 'team', 'hired', 'leave',
  'flight', 'hotel', 'booking', 'paris', 'lisbon', 'berlin', 'confirmed', 'cancelled',
  'order', 'shipped', 'warehouse', 'units', 'delayed', 'customer', 'refund',
  'alice', 'bruno', 'chloe', 'dmitri', 'emma', 'farid', 'giulia', 'hugo', 'ines', 'jonas',
  '12', '40', '75', '120', '300', '950', '1200', '4800', '2026',
];

/** Names for up to 64 synthetic tenants (tenant count and identities are assumptions, not facts). */
export const TENANT_NAMES = [
  'acme', 'borealis', 'cobalt', 'delta', 'ember', 'fjord', 'granite', 'harbor', 'indigo', 'juniper',
  'kestrel', 'lumen', 'meridian', 'nimbus', 'onyx', 'pioneer', 'quartz', 'raven', 'summit', 'tundra',
  'umbra', 'vertex', 'willow', 'xenon', 'yonder', 'zephyr', 'aurora', 'basalt', 'cedar', 'dune',
  'echo', 'falcon', 'glacier', 'helix', 'iris', 'jade', 'kodiak', 'lotus', 'mosaic', 'nova',
  'orbit', 'prism', 'quill', 'ripple', 'sable', 'tidal', 'unity', 'vista', 'wren', 'xylo',
  'yarrow', 'zenith', 'alder', 'birch', 'canyon', 'dawn', 'elm', 'flint', 'grove', 'heath',
  'ivy', 'jasper', 'kelp', 'larch',
];

export const TOPICS = ['invoices', 'clinic', 'code', 'legal', 'hr', 'travel', 'orders'] as const;
export type Topic = (typeof TOPICS)[number];

/** Sentence templates per topic; `$name` is the tenant's name, `$x` a word drawn from the list after it. */
const TEMPLATES: Record<Topic, string[][]> = {
  invoices: [
    ['invoice', '$n', 'for', '$name', ':', 'amount', '$n', '$cur', 'due', '$day', '.'],
    ['invoice', '$n', 'of', '$name', 'is', '$paid', 'on', '$day', '.'],
  ],
  clinic: [
    ['patient', '$person', 'of', '$name', 'reports', '$symptom', 'since', '$day', '.'],
    ['$person', 'prescribed', '$drug', 'by', '$name', 'on', '$day', '.'],
  ],
  code: [
    ['function', '$fn', 'in', '$name', 'repo', 'throws', '$err', 'when', 'input', 'is', 'empty', '.'],
    ['$person', 'and', '$person', 'review', '$fn', 'in', '$name', 'repo', '.'],
  ],
  legal: [
    ['clause', '$n', 'of', 'the', '$name', 'contract', 'limits', 'liability', 'to', '$n', '$cur', '.'],
    ['the', '$name', 'contract', 'term', 'renewal', 'notice', 'is', '$n', 'days', '.'],
  ],
  hr: [
    ['$person', 'salary', 'review', 'at', '$name', ':', '$n', '$cur', ',', 'manager', 'approved', '.'],
    ['$person', 'hired', 'to', '$name', 'team', 'on', '$day', ',', 'bonus', '$n', '.'],
  ],
  travel: [
    ['flight', 'to', '$city', 'for', '$person', 'of', '$name', 'is', '$booked', '.'],
    ['hotel', 'booking', 'in', '$city', 'for', '$name', 'team', 'from', '$day', '.'],
  ],
  orders: [
    ['order', '$n', 'for', '$name', 'customer', ':', '$n', 'units', '$shipped', 'from', 'warehouse', '.'],
    ['refund', 'of', '$n', '$cur', 'to', '$name', 'customer', 'approved', 'on', '$day', '.'],
  ],
};

const SLOTS: Record<string, string[]> = {
  $n: ['12', '40', '75', '120', '300', '950', '1200', '4800', '2026'],
  $cur: ['eur', 'usd'],
  $day: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  $paid: ['paid', 'overdue'],
  $person: ['alice', 'bruno', 'chloe', 'dmitri', 'emma', 'farid', 'giulia', 'hugo', 'ines', 'jonas'],
  $symptom: ['fever', 'cough', 'headache'],
  $drug: ['ibuprofen', 'amoxicillin'],
  $fn: ['parse', 'render'],
  $err: ['null', 'timeout'],
  $city: ['paris', 'lisbon', 'berlin'],
  $booked: ['confirmed', 'cancelled'],
  $shipped: ['shipped', 'delayed'],
};

export function canaryWord(tenantName: string): string {
  return `canary-${tenantName}`;
}

/**
 * A vocabulary: special tokens, shared words, every tenant name and canary, and any extra word a
 * trace's explicit text brings. Ids are assigned in a fixed order so that they are deterministic.
 */
export class Vocabulary {
  readonly words: string[] = [];
  private readonly ids = new Map<string, number>();

  constructor(tenantNames: readonly string[], extraWords: Iterable<string> = []) {
    for (const w of SPECIAL_WORDS) this.add(w);
    for (const w of SHARED_WORDS) this.add(w);
    this.add('at');
    for (const name of tenantNames) {
      this.add(name);
      this.add(canaryWord(name));
    }
    for (const w of extraWords) this.add(w);
    if (this.words.length > MAX_VOCABULARY) {
      throw new Error(`vocabulary has ${this.words.length} words; the decode model supports at most ${MAX_VOCABULARY}`);
    }
  }

  private add(word: string): void {
    if (!this.ids.has(word)) {
      this.ids.set(word, this.words.length);
      this.words.push(word);
    }
  }

  get size(): number {
    return this.words.length;
  }

  id(word: string): number {
    const id = this.ids.get(word);
    if (id === undefined) throw new Error(`word not in vocabulary: ${JSON.stringify(word)}`);
    return id;
  }

  has(word: string): boolean {
    return this.ids.has(word);
  }

  word(id: number): string {
    return this.words[id] ?? `⟨${id}⟩`;
  }

  encode(text: string): Uint16Array {
    const parts = splitWords(text);
    const out = new Uint16Array(parts.length);
    parts.forEach((w, i) => (out[i] = this.id(w)));
    return out;
  }

  decode(tokens: ArrayLike<number>): string {
    const parts: string[] = [];
    for (let i = 0; i < tokens.length; i++) parts.push(this.word(tokens[i] ?? 0));
    return parts.join(' ').replace(/ ([.,:])/g, '$1');
  }
}

/**
 * Checks a trace's texts against MAX_VOCABULARY, in the order the vocabulary takes them in (tenants'
 * texts, then requests'). Returns the first text that takes it past the limit, with the size the whole
 * trace would need; null when it fits.
 */
export function vocabularyOverflow(tenantNames: readonly string[], texts: readonly { field: string; text: string }[]): { field: string; size: number } | null {
  const words = new Set<string>([...SPECIAL_WORDS, ...SHARED_WORDS, 'at']);
  for (const name of tenantNames) words.add(name).add(canaryWord(name));
  let first: string | null = words.size > MAX_VOCABULARY ? '(built-in words and tenant names)' : null;
  for (const { field, text } of texts) {
    for (const w of splitWords(text)) words.add(w);
    if (first === null && words.size > MAX_VOCABULARY) first = field;
  }
  return first === null ? null : { field: first, size: words.size };
}

/** The texts of a trace, each with the field it came from, in the order the vocabulary takes them in. */
export function traceTexts(trace: { tenants: readonly { text?: string | undefined }[]; requests: readonly { text?: string | undefined }[] }): { field: string; text: string }[] {
  const out: { field: string; text: string }[] = [];
  trace.tenants.forEach((t, i) => t.text !== undefined && out.push({ field: `tenants.${i}.text`, text: t.text }));
  trace.requests.forEach((r, i) => r.text !== undefined && out.push({ field: `requests.${i}.text`, text: r.text }));
  return out;
}

/** Whitespace tokenisation, with . , : as tokens of their own. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([.,:])/g, ' $1 ')
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

export interface TenantProfile {
  name: string;
  topic: Topic;
  canary: boolean;
  /** Also put the canary right after every mention of the tenant's name (see TenantSpec). */
  canaryAtMentions?: boolean;
}

/**
 * A tenant's document: a fixed cycle of tokens that its prompts are cut from. Generated once per
 * tenant from the seed; `explicitText` replaces it (tests use that to change what a tenant sent).
 */
export function tenantCorpus(
  vocab: Vocabulary,
  profile: TenantProfile,
  seed: string,
  lengthTokens = 2048,
  explicitText?: string,
): Uint16Array {
  if (explicitText !== undefined) {
    const tokens = vocab.encode(explicitText);
    if (tokens.length === 0) throw new Error(`tenant ${profile.name}: text is empty`);
    return tokens;
  }
  const rng = new Prng(`${seed}:corpus:${profile.name}`);
  const out: number[] = [];
  const templates = TEMPLATES[profile.topic];
  while (out.length < lengthTokens) {
    const template = rng.pick(templates);
    for (const part of template) {
      if (part === '$name') {
        out.push(vocab.id(profile.name));
        if (profile.canary && profile.canaryAtMentions) out.push(vocab.id(canaryWord(profile.name)));
      }
      else if (part.startsWith('$')) out.push(vocab.id(rng.pick(SLOTS[part] ?? [part])));
      else out.push(vocab.id(part));
    }
    if (profile.canary) {
      out.push(vocab.id('ref'), vocab.id(canaryWord(profile.name)), vocab.id('.'));
    }
  }
  return Uint16Array.from(out.slice(0, lengthTokens));
}
