/**
 * Test and bench entry: exposes the transformer's WebGPU agreement check and speed run on the page
 * (`stalePagesModelCheck`). Bundled on its own by e2e/webgpu.spec.ts and bench/model.bench.ts and
 * added to the built site's page; the app never imports it.
 */
import { transformerAgreement, transformerGpuSpeed } from './modelAgreement.ts';

(globalThis as { stalePagesModelCheck?: unknown }).stalePagesModelCheck = { agreement: transformerAgreement, speed: transformerGpuSpeed };
