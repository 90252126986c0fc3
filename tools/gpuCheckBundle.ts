/**
 * Bundles src/gpu/modelCheckEntry.ts into one ES module (in memory), for a test or bench to add to a
 * page of the built site, which then exposes `stalePagesModelCheck` (the transformer's WebGPU check).
 */
import { build } from 'vite';

export async function gpuCheckBundle(): Promise<string> {
  const out = await build({
    configFile: false,
    logLevel: 'warn',
    build: { write: false, minify: false, sourcemap: false, lib: { entry: new URL('../src/gpu/modelCheckEntry.ts', import.meta.url).pathname, formats: ['es'], fileName: 'model-check' } },
  });
  const outputs = Array.isArray(out) ? out : [out];
  for (const o of outputs) {
    if ('output' in o) {
      const chunk = o.output.find((c) => c.type === 'chunk');
      if (chunk && chunk.type === 'chunk') return chunk.code;
    }
  }
  throw new Error('gpuCheckBundle: the build produced no chunk');
}
