/**
 * The configurations `npm run verify` checks, each with the verdict it is expected to reach.
 * Sizes are the smallest that still show the mechanism: prefill holds 2 pages, the advertised
 * context is 3, decode holds 3 (larger than prefill, as in the incident).
 */
import { NO_MITIGATIONS, type Mitigations } from '../config.ts';
import { SWITCHES, designOf, type CounterpartId, type Localised, type Switch } from '../switches.ts';
import { COUNTERPART_TEXT } from './counterpartText.ts';
import type { ProtocolConfig, RequestSpec } from './model.ts';
import type { PropertyId } from './explore.ts';

/**
 * Two 2-page requests of tenant 1 and an over-limit 3-page request of tenant 2. Every request B
 * could follow wrote whole decode pages, so a leak shows both ways stale KV reaches B: the
 * placeholder page's stale slots and the pages behind it.
 */
export const REQUESTS: RequestSpec[] = [
  { name: 'A', tenant: 1, pages: 2 },
  { name: 'B', tenant: 2, pages: 3 },
  { name: 'C', tenant: 1, pages: 2 },
];

/**
 * For the decode-abort race: two 1-page requests of different tenants, so prefill (2 pages) can work
 * on the next request while an aborted one still has writes to post. With 2-page requests the
 * small prefill pool would serialise them and hide the race.
 */
export const RACE_REQUESTS: RequestSpec[] = [
  { name: 'A', tenant: 1, pages: 1 },
  { name: 'B', tenant: 2, pages: 3 },
  { name: 'C', tenant: 2, pages: 1 },
];

/** Advertised context 3 pages, prefill cache 2: the gap the report says was known before launch. */
const GAP = { advertisedPages: 3, prefillPages: 2, decodePages: 3 } as const;

function config(id: string, title: string, over: Partial<Omit<ProtocolConfig, 'mitigations'>> & { mitigations?: Mitigations }): ProtocolConfig {
  return {
    id,
    title,
    rejectPath: 'buggy',
    ...GAP,
    requests: REQUESTS,
    decodeAbort: false,
    mutation: 'none',
    ...over,
    mitigations: { ...NO_MITIGATIONS, ...over.mitigations },
  };
}

export interface CheckedConfig {
  config: ProtocolConfig;
  /** Properties expected to hold; the rest are expected to be violated. */
  expectHolds: Record<PropertyId, boolean>;
  /** Its title in both languages (`config.title` is the English, which the CLI prints). */
  title: Localised;
  /** Why this configuration is here, in a sentence. */
  note: Localised;
  /** The public sources (background ids of the facts file) the note names. */
  sources: readonly string[];
}

/** The configurations that are not a switch's protocol counterpart. */
type OwnConfigId = 'incident' | 'unchunked' | 'abort-race' | 'abort-race-per-read';
/** Every configuration's id: the switches' counterparts' (from the registry) and the check's own. */
export type CheckedConfigId = (typeof SWITCHES)[number]['protocol']['id'] | OwnConfigId;

function checked(id: OwnConfigId, title: Localised, note: Localised, expectHolds: Record<PropertyId, boolean>, over: Parameters<typeof config>[2], sources: readonly string[] = []): CheckedConfig {
  return { config: config(id, title.en, over), expectHolds, title, note, sources };
}

const SAFE = { confidentiality: true, integrity: true, exclusiveOwnership: true } as const;
const LEAKS = { confidentiality: false, integrity: false, exclusiveOwnership: true } as const;

/**
 * The incident, then each switch of the registry set to its fix (its protocol counterpart), then the
 * upstream mechanics that are not switches of the simulation.
 */
export const CHECKED_CONFIGS: CheckedConfig[] = [
  checked(
    'incident',
    { en: 'Buggy reject path, capacity gap (the incident)', fr: 'Chemin de rejet défectueux, écart de capacité (l\u2019incident)' },
    { en: 'Both defects: the over-limit request is forwarded with a placeholder and decode reads stale pages.', fr: 'Les deux défauts : la requête au-delà de la limite poursuit avec un jeton provisoire et la génération lit des pages anciennes.' },
    LEAKS,
    {},
  ),
  ...(SWITCHES as readonly Switch[]).map((s) => ({
    // The abort-race design has its own requests: see RACE_REQUESTS.
    config: config(s.protocol.id, COUNTERPART_TEXT[s.protocol.id as CounterpartId].title.en, designOf(s.key) === 'abort-race' ? { requests: RACE_REQUESTS, ...s.protocol.overrides } : s.protocol.overrides),
    expectHolds: s.protocol.expectHolds,
    ...COUNTERPART_TEXT[s.protocol.id as CounterpartId],
    sources: s.protocol.sources ?? [],
  })),
  checked(
    'unchunked',
    { en: 'Buggy reject path, capacity gap, each prompt computed and sent in one step', fr: 'Chemin défectueux, écart de capacité, chaque demande calculée et envoyée en une étape' },
    { en: 'The engine\u2019s default without chunked prefill: prefill sends a prompt\u2019s pages at once when it has computed them all.', fr: 'Le comportement par défaut du moteur sans préparation par morceaux : la préparation envoie les pages d\u2019une demande d\u2019un coup, une fois toutes calculées.' },
    LEAKS,
    { chunkPages: 'whole' },
  ),
  checked(
    'abort-race',
    { en: 'Fixed path + gap + decode abort, late writes not fenced', fr: 'Chemin corrigé + écart + abandon en génération, écritures tardives non bloquées' },
    { en: 'A client cancels mid-transfer; decode frees the pages at once and late RDMA writes land in their next owner (the page-reuse race of SGLang PR #24578, closed; we have not checked how it fences late writes).', fr: 'Un client annule en plein transfert ; la génération libère aussitôt les pages et des écritures RDMA tardives atterrissent chez leur nouveau détenteur (la course à la réutilisation des pages de la PR SGLang #24578, fermée ; nous n\u2019avons pas vérifié comment elle bloque les écritures tardives).' },
    LEAKS,
    { rejectPath: 'fixed', decodeAbort: true, requests: RACE_REQUESTS },
    ['B11'],
  ),
  checked(
    'abort-race-per-read',
    { en: 'Fixed path + gap + unfenced decode abort + per-read check', fr: 'Chemin corrigé + écart + abandon non bloqué + contrôle à chaque lecture' },
    { en: 'A late write re-tags the page it lands in, so the victim\u2019s per-read check fails closed.', fr: 'Une écriture tardive marque la page où elle atterrit, si bien que le contrôle à chaque lecture de la victime l\u2019arrête sur erreur.' },
    SAFE,
    { rejectPath: 'fixed', decodeAbort: true, requests: RACE_REQUESTS, mitigations: { perReadIntegrityCheck: true } },
  ),
];

export function checkedConfig(id: string): CheckedConfig | undefined {
  return CHECKED_CONFIGS.find((c) => c.config.id === id);
}
