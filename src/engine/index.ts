/** The engine's public surface. Pure TypeScript: runs in Node, a Web Worker or a page alike. */
export * from './config.ts';
export * from './trace.ts';
export * from './events.ts';
export * from './kvPool.ts';
export * from './attention.ts';
export * from './simulation.ts';
export * from './scenarios.ts';
export * from './matrix.ts';
export * from './schema.ts';
export * from './pages.ts';
export * from './run.ts';
export * from './switches.ts';
export { LEAK_SHARE_THRESHOLD, describeTransformer, type DecoderKind, type ModelDescription, type TokenAttention } from './transformerDecoder.ts';
export { decodeWeights, type TransformerWeights } from './model/transformer.ts';
export { WEIGHTS_PATH } from './model/recipe.ts';
export { Vocabulary, TENANT_NAMES, TOPICS, canaryWord, TOKEN_ZERO, TOKEN_PLACEHOLDER, TOKEN_BOS } from './core/vocab.ts';
export { Prng, seedFromString } from './core/prng.ts';
export { Fnv64, fnv64Hex } from './hash.ts';
