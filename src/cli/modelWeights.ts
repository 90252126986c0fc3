/** The committed transformer weights, read from the site's public folder (Node tools and tests). */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WEIGHTS_PATH } from '../engine/model/recipe.ts';
import { decodeWeights, type TransformerWeights } from '../engine/model/transformer.ts';

export function readModelWeights(path = new URL(`../../public/${WEIGHTS_PATH}`, import.meta.url)): { weights: TransformerWeights; sha256: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new Error(`${String(path)}: cannot read the model's weights (${(e as NodeJS.ErrnoException).code ?? String(e)}); npm run train writes them`);
  }
  const { weights } = decodeWeights(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  return { weights, sha256: createHash('sha256').update(bytes).digest('hex') };
}
