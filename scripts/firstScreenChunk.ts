/**
 * Rolldown code splitting for the page: the modules the first screen runs go into one chunk,
 * instead of the dozen small chunks rolldown splits off because a lazy view or panel imports them
 * too. One file compresses better than the same code in thirteen (one gzip stream, fewer
 * import/export lists), and the page asks for one file instead of thirteen. What only lazy imports
 * reach stays in their own chunks.
 */
import type { Plugin } from 'vite';

interface ModuleGraph {
  getModuleInfo(id: string): { importedIds: readonly string[]; dynamicImporters: readonly string[]; code: string | null } | null;
}

/**
 * A module that re-exports others (`export * from`, `export { x } from`) and does little else: d3's
 * index (which also exports its version), the engine's.
 */
export function isBarrel(code: string | null): boolean {
  if (code === null) return false;
  const body = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const reExport = /\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['"]/;
  return reExport.test(body) && body.replace(/\b(?:export|import)\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['"][^'"]+['"];?/g, '').trim().length < 100;
}

/**
 * The modules reached from `entries` by static imports, save barrels and what only a barrel leads
 * to, and save modules something imports lazily: for these, rolldown's own splitting knows better
 * whether the first screen uses them (one name of many) or only a lazy view does (the assumptions'
 * texts, d3's zoom). Left out, such a module still goes where rolldown puts it.
 */
export function firstScreenModules(graph: ModuleGraph, entries: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const stack = [...entries];
  const entrySet = new Set(stack);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    const info = graph.getModuleInfo(id);
    if (!info || isBarrel(info.code) || (info.dynamicImporters.length > 0 && !entrySet.has(id))) continue;
    seen.add(id);
    stack.push(...info.importedIds);
  }
  return seen;
}

export function firstScreenChunk(): Plugin {
  let entries: string[] = [];
  const sets = new WeakMap<object, Set<string>>();
  return {
    name: 'stale-pages:first-screen-chunk',
    apply: 'build',
    buildEnd() {
      entries = [...this.getModuleIds()].filter((id) => this.getModuleInfo(id)?.isEntry);
    },
    outputOptions(options) {
      return {
        ...options,
        codeSplitting: {
          groups: [
            {
              name: (id, ctx) => {
                let set = sets.get(ctx);
                if (!set) sets.set(ctx, (set = firstScreenModules(ctx, entries)));
                return set.has(id) ? 'index' : null;
              },
            },
          ],
        },
      };
    },
  };
}
