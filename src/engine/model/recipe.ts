/**
 * How the committed weights were trained: `npm run train` runs exactly this, and reproduces the
 * committed file byte for byte on the same JS engine (scripts/train.ts checks the hash).
 */
import type { TrainOptions } from './train.ts';

export const TRAINING_RECIPE: Omit<TrainOptions, 'onLog'> = {
  shape: { dim: 32, layers: 2, heads: 2, hidden: 128, ropeBase: 10_000 },
  seed: 'stale-pages-lm',
  steps: 1200,
  batch: 4,
  window: 128,
  learningRate: 3e-3,
  warmupSteps: 50,
  logEvery: 100,
};

/** Where the page and the Node tools find the weights (under public/, served by the site itself). */
export const WEIGHTS_PATH = 'model/stale-pages-lm.bin';
export const WEIGHTS_CARD_PATH = 'model/stale-pages-lm.json';
