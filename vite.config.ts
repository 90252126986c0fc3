/// <reference types="vitest/config" />
import { availableParallelism } from 'node:os';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { FACTS_URL } from './src/data/loadFacts.ts';
import { runKeyOf } from './src/engine/runs/index.ts';
import { catalogueChunks } from './scripts/catalogueChunks.ts';
import { firstScreenChunk } from './scripts/firstScreenChunk.ts';
import { DEFAULT_RUN_REQUEST, prebuiltRunFile, prebuiltRuns } from './scripts/prebuiltRuns.ts';

/**
 * The opening's data, asked for by index.html itself: the facts and the default run's prebuilt file
 * download while the scripts do, instead of after the first render asks for them. The page's own
 * fetches (same URL, same mode) then take the preloaded responses. A link to another scenario
 * fetches the default run's file for nothing; the default page is the one most people open.
 */
function preloadOpeningData(): Plugin {
  const fetched = (href: string) => ({ tag: 'link', attrs: { rel: 'preload', href: `./${href}`, as: 'fetch', crossorigin: 'anonymous' }, injectTo: 'head' as const });
  return {
    name: 'stale-pages:preload-opening-data',
    transformIndexHtml: () => [fetched(FACTS_URL), fetched(prebuiltRunFile(runKeyOf(DEFAULT_RUN_REQUEST)))],
  };
}

export default defineConfig({
  // Relative asset URLs: the built site works from any sub-path (and from a file server offline).
  base: './',
  plugins: [react(), prebuiltRuns(), catalogueChunks(), preloadOpeningData(), firstScreenChunk()],
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts', 'tools/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    // Vitest's default is one worker less than the cores: one on CI's two, which left a core idle while
    // the CLI and room tests wait on the processes they start.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
