/** The catalogue's per-language modules, made from messages.ts by the build (scripts/catalogueChunks.ts). */
declare module 'virtual:catalogue/*' {
  const table: Record<import('./messages.ts').MessageKey, string>;
  export default table;
}
