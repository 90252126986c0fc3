/**
 * Decode inputs for the backend panel, the agreement checks and the benchmark. Pure engine code.
 *
 * `warmWorkload` is the incident's shape at full size: a decode pool that earlier tenants' requests
 * have written and freed (stale, not cleared), then a 1,048,576-token request whose block table lands
 * on those pages while prefill wrote only the start of its prompt. `randomCase` draws small-to-large
 * contexts with arbitrary page sizes, vocabularies, writers, block tables, queries and histories, so
 * that agreement is checked on inputs no one picked.
 */
import {
  ADVERTISED_CONTEXT_TOKENS,
  INCIDENT_CONFIG,
  KvPool,
  Prng,
  TENANT_NAMES,
  TOPICS,
  Vocabulary,
  buildDecodeModel,
  type DecodeModel,
  type GenerateOptions,
  type KvContext,
  type WriterClassifier,
} from '../engine/index.ts';
import { tenantCorpus } from '../engine/core/vocab.ts';

/** The advertised context (F14): the longest block table a request could bring. */
export const FULL_CONTEXT_TOKENS = ADVERTISED_CONTEXT_TOKENS;
export const BENCH_SIZES = [65_536, FULL_CONTEXT_TOKENS] as const;

export interface DecodeCase {
  label: string;
  model: DecodeModel;
  ctx: KvContext;
  who: WriterClassifier;
  opts: GenerateOptions;
}

export interface WarmWorkload {
  vocab: Vocabulary;
  model: DecodeModel;
  pool: KvPool;
  tenantNames: string[];
  requestTenant: Int32Array;
  /** The victim's request id and tenant. */
  request: number;
  tenant: number;
  /** The victim's pages: FULL_CONTEXT_TOKENS / pageSize of them. */
  blockTable: Int32Array;
  /** Tokens prefill actually wrote for the victim; the rest of its pages are stale. */
  writtenTokens: number;
  /** The last prompt token the victim's prefill wrote: the first decode step's query. */
  query: number;
}

const TENANTS = 8;
const EARLIER_REQUESTS = 10;

export function warmWorkload(seed = 'stale-pages-gpu', writtenTokens = 2_048): WarmWorkload {
  const tenantNames = TENANT_NAMES.slice(0, TENANTS);
  const vocab = new Vocabulary(tenantNames);
  const model = buildDecodeModel(vocab.size, INCIDENT_CONFIG.model);
  const corpora = tenantNames.map((name, i) => tenantCorpus(vocab, { name, topic: TOPICS[i % TOPICS.length]!, canary: true }, seed, 4096));
  const pool = new KvPool('decode', 0, INCIDENT_CONFIG.decodeCapacityTokens, INCIDENT_CONFIG.pageSize);
  const rng = new Prng(`${seed}:warm`);
  const requestTenant = new Int32Array(EARLIER_REQUESTS + 1);

  // Earlier requests of tenants 1..7 fill the pool and are freed without clearing.
  const perRequestPages = Math.floor(pool.pageCount / EARLIER_REQUESTS);
  for (let r = 0; r < EARLIER_REQUESTS; r++) {
    const tenant = 1 + (r % (TENANTS - 1));
    requestTenant[r] = tenant;
    const pages = pool.allocate(perRequestPages, r)!;
    const tokens = cycled(corpora[tenant]!, rng.int(4096), perRequestPages * pool.pageSize);
    pool.writeTokens(pages, tokens, tokens[tokens.length - 1]!, r, r, r);
    pool.free(pages, false);
  }

  // The victim (tenant 0): a full-length block table, of which prefill wrote only the start.
  const request = EARLIER_REQUESTS;
  requestTenant[request] = 0;
  const blockTable = pool.allocate(FULL_CONTEXT_TOKENS / pool.pageSize, request)!;
  const prompt = corpora[0]!.subarray(0, writtenTokens);
  pool.writeTokens(blockTable, prompt, 2, request, request, request);
  return { vocab, model, pool, tenantNames, requestTenant, request, tenant: 0, blockTable, writtenTokens, query: prompt[prompt.length - 1]! };
}

function cycled(source: Uint16Array, offset: number, length: number): Uint16Array {
  const out = new Uint16Array(length);
  for (let i = 0; i < length; i++) out[i] = source[(offset + i) % source.length]!;
  return out;
}

/** The victim's decode over the first `contextTokens` of its block table. */
export function warmCase(w: WarmWorkload, contextTokens: number, steps: number): DecodeCase {
  if (contextTokens > w.blockTable.length * w.pool.pageSize) throw new Error(`the workload holds at most ${w.blockTable.length * w.pool.pageSize} tokens`);
  return {
    label: `warm pool, ${contextTokens.toLocaleString('en-US')} tokens`,
    model: w.model,
    ctx: {
      keyTokens: w.pool.keyTokens,
      valueTokens: w.pool.valueTokens,
      slotWriter: w.pool.slotWriter,
      pageSize: w.pool.pageSize,
      blockTable: w.blockTable.subarray(0, Math.ceil(contextTokens / w.pool.pageSize)),
      seqLen: contextTokens,
    },
    who: { requestTenant: w.requestTenant, tenant: w.tenant },
    opts: { query: w.query, steps },
  };
}

/** Random models are cached by shape: building one costs V²·dim. */
const modelCache = new Map<string, DecodeModel>();

/**
 * A random decode input. Sizes are drawn log-uniformly up to `maxTokens`; token ids are drawn from a
 * small "hot" set most of the time so that groups repeat (as text does) and ties happen.
 */
export function randomCase(seed: string, index: number, maxTokens = 262_144, shape: 'text-like' | 'spread' = 'text-like'): DecodeCase {
  const rng = new Prng(`${seed}:case:${index}:${shape}`);
  // `spread`: the full vocabulary, no hot tokens: nearly every slot is its own group, which
  // exercises the GPU's group list at its largest (and its second readback).
  const spread = shape === 'spread';
  const vocabSize = spread ? 1024 : rng.pick([4, 8, 40, 120, 257, 1024]);
  const dim = rng.pick([4, 16, 32]);
  const sharpness = rng.pick([0.5, 3, 8, 14]);
  const repetitionPenalty = rng.pick([1, 1.3, 2.5]);
  const key = `${vocabSize}:${dim}:${sharpness}:${repetitionPenalty}`;
  let model = modelCache.get(key);
  if (!model) {
    model = buildDecodeModel(vocabSize, { dim, sharpness, repetitionPenalty, weightsSeed: `random-${key}` });
    modelCache.set(key, model);
  }
  const pageSize = rng.pick([1, 3, 16, 64]);
  // Every third case is large; the others spread log-uniformly down to a single token.
  const large = spread || index % 3 === 0;
  const seqLen = large ? Math.floor(maxTokens / 4 + rng.next() * (maxTokens * 3) / 4) : Math.max(1, Math.floor(Math.exp(rng.next() * Math.log(maxTokens))));
  const contextPages = Math.ceil(seqLen / pageSize);
  const poolPages = contextPages + rng.int(contextPages + 4);
  const slots = poolPages * pageSize;
  const hot = Array.from({ length: 1 + rng.int(12) }, () => rng.int(vocabSize));
  const token = () => (!spread && rng.next() < 0.7 ? rng.pick(hot) : rng.int(vocabSize));
  const keyTokens = new Uint16Array(slots);
  const valueTokens = new Uint16Array(slots);
  const slotWriter = new Int32Array(slots);
  const requests = 1 + rng.int(20);
  const tenants = 1 + rng.int(5);
  for (let i = 0; i < slots; i++) {
    keyTokens[i] = token();
    valueTokens[i] = token();
    // −1 (empty) and an id past the request table (foreign by the engine's rule) both occur.
    slotWriter[i] = rng.int(requests + 2) - 1;
  }
  const requestTenant = Int32Array.from({ length: requests }, () => rng.int(tenants));
  // Pages in random order, some shared by two positions (a corrupt table is still a table).
  const blockTable = Int32Array.from({ length: contextPages }, () => rng.int(poolPages));
  const history = Array.from({ length: rng.int(4) }, () => rng.int(vocabSize));
  return {
    label: `random${spread ? ' spread' : ''} #${index}: ${seqLen.toLocaleString('en-US')} tokens, V=${vocabSize}, page ${pageSize}`,
    model,
    ctx: { keyTokens, valueTokens, slotWriter, pageSize, blockTable, seqLen },
    who: { requestTenant, tenant: rng.int(tenants) },
    opts: { query: rng.int(vocabSize), steps: 1 + rng.int(8), history },
  };
}
