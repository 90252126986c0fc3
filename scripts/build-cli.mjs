/**
 * Builds the command lines an operator runs in CI into plain JavaScript (dist-cli/), so a run pays
 * Node's start-up only, not a TypeScript loader's: `npm ci` runs it (the `prepare` script), and
 * `npm run build:cli` after a change. Everything is bundled but Node's own modules.
 */
import { build } from 'vite';

const entries = { 'check-deployment': 'src/cli/checkDeployment.ts' };
await build({
  configFile: false,
  logLevel: 'warn',
  publicDir: false,
  build: {
    ssr: true,
    outDir: 'dist-cli',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: false,
    rollupOptions: { input: entries, output: { format: 'es', entryFileNames: '[name].mjs', banner: (chunk) => (chunk.isEntry ? '#!/usr/bin/env node' : '') } },
  },
  ssr: { noExternal: true, target: 'node' },
});
