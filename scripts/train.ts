/**
 * npm run train [-- --check]
 *
 * Trains the small transformer (src/engine/model/train.ts) with the committed recipe and writes its
 * weights and card under public/model/. With --check it writes nothing and exits 1 unless the
 * weights it trained hash to the committed ones: the committed file is reproducible.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { TRAINING_RECIPE, WEIGHTS_CARD_PATH, WEIGHTS_PATH } from '../src/engine/model/recipe.ts';
import { train } from '../src/engine/model/train.ts';
import { encodeWeights, parameterCount } from '../src/engine/model/transformer.ts';

const { values: args } = parseArgs({ options: { check: { type: 'boolean', default: false } }, strict: true });
const publicDir = new URL('../public/', import.meta.url);
const started = performance.now();
const result = train({ ...TRAINING_RECIPE, onLog: (step, loss) => process.stdout.write(`step ${String(step).padStart(5)}  loss ${loss.toFixed(4)}  ${((performance.now() - started) / 1000).toFixed(0)} s\n`) });
const seconds = (performance.now() - started) / 1000;
const bytes = encodeWeights(result.weights, { recipe: TRAINING_RECIPE });
const sha256 = createHash('sha256').update(bytes).digest('hex');
const card = {
  file: WEIGHTS_PATH,
  sha256,
  bytes: bytes.length,
  shape: result.weights.shape,
  parameters: parameterCount(result.weights.shape),
  recipe: TRAINING_RECIPE,
  curve: result.curve.map(([step, loss]) => [step, Math.round(loss * 1e4) / 1e4]),
  heldOut: { loss: Math.round(result.heldOutLoss * 1e4) / 1e4, nextTokenAccuracy: Math.round(result.heldOutAccuracy * 1e4) / 1e4 },
  trainSeconds: Math.round(seconds),
  node: process.version,
};
console.log(`trained ${card.parameters.toLocaleString('en-US')} parameters in ${seconds.toFixed(0)} s; held-out loss ${card.heldOut.loss}, next-token accuracy ${(card.heldOut.nextTokenAccuracy * 100).toFixed(1)} %`);
console.log(`weights ${bytes.length.toLocaleString('en-US')} bytes, sha256 ${sha256}`);
if (args.check) {
  const committed = JSON.parse(readFileSync(new URL(WEIGHTS_CARD_PATH, publicDir), 'utf8')) as { sha256: string };
  const onDisk = createHash('sha256').update(readFileSync(new URL(WEIGHTS_PATH, publicDir))).digest('hex');
  if (committed.sha256 !== sha256 || onDisk !== sha256) {
    console.error(`train: the weights trained here (${sha256}) differ from the committed ones (card ${committed.sha256}, file ${onDisk})`);
    process.exit(1);
  }
  console.log('reproduced: the committed weights have this hash');
} else {
  writeFileSync(new URL(WEIGHTS_PATH, publicDir), bytes);
  writeFileSync(new URL(WEIGHTS_CARD_PATH, publicDir), JSON.stringify(card, null, 2) + '\n');
  console.log(`wrote public/${WEIGHTS_PATH} and public/${WEIGHTS_CARD_PATH}`);
}
