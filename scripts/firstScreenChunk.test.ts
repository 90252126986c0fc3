import { describe, expect, test } from 'vitest';
import { firstScreenModules, isBarrel } from './firstScreenChunk.ts';

describe('the first screen’s chunk', () => {
  test('a barrel is a module of re-exports (d3’s index exports its version too); a module with code is not', () => {
    expect(isBarrel("export * from './config.ts';\nexport { LEAK, type K } from './decoder.ts';\n")).toBe(true);
    expect(isBarrel("// d3\nexport * from 'd3-array';\nexport * from 'd3-axis';\n\nvar version = \"7.9.2\";\n\nexport { version };\n")).toBe(true);
    expect(isBarrel("import { a } from './a.ts';\nexport const b = a + 1;\n")).toBe(false);
    expect(isBarrel("export * from './a.ts';\n" + 'export function big() { return [' + '1, '.repeat(60) + ']; }\n')).toBe(false);
    expect(isBarrel(null)).toBe(false);
  });

  test('holds what the entry imports statically, not what a barrel leads to nor what something imports lazily', () => {
    const modules: Record<string, { importedIds: string[]; dynamicImporters?: string[]; code?: string }> = {
      main: { importedIds: ['app', 'barrel'] },
      app: { importedIds: ['lib', 'shared'] },
      lib: { importedIds: [] },
      // Imported by the app and lazily by a view: rolldown places it.
      shared: { importedIds: ['sharedDep'], dynamicImporters: ['view'] },
      sharedDep: { importedIds: [] },
      barrel: { importedIds: ['texts'], code: "export * from './texts.ts';" },
      texts: { importedIds: [] },
    };
    const graph = { getModuleInfo: (id: string) => (modules[id] ? { importedIds: modules[id].importedIds, dynamicImporters: modules[id].dynamicImporters ?? [], code: modules[id].code ?? 'export const x = 1;' } : null) };
    expect([...firstScreenModules(graph, ['main'])].sort()).toEqual(['app', 'lib', 'main']);
  });
});
