/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { catalogueChunks } from './scripts/catalogueChunks.ts';
import { prebuiltRuns } from './scripts/prebuiltRuns.ts';

export default defineConfig({
  // Relative asset URLs: the built site works from any sub-path (and from a file server offline).
  base: './',
  plugins: [react(), prebuiltRuns(), catalogueChunks()],
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
