/**
 * The project's layering, checked in `npm test` (npm run check:deps, over src/, scripts/, tools/,
 * e2e/, bench/ and the root configs). Every folder sits in one tier of TIERS, top to bottom; a module
 * imports only folders of lower tiers (never a higher one, never another folder of its own tier), so
 * no folder imports a folder above it and no two folders import each other.
 *
 * src/engine is pure: it imports nothing else of the project and no Node built-in.
 */

/** A folder (its files and subfolders), or one file. */
const dir = (path) => `^${path.replace(/\./g, '\\.')}/`;
const file = (path) => `^${path.replace(/\./g, '\\.')}$`;
const view = (name) => dir(`src/app/views/${name}`);

/** Top to bottom. Each entry: a name (used in the rules' names), the paths it covers, and why it sits there. */
const TIERS = [
  [
    { name: 'e2e', path: dir('e2e'), why: 'end-to-end specs of the built site: may read any code below (chapters, catalogue, engine)' },
    { name: 'bench', path: dir('bench'), why: 'benchmarks: the run the page opens on, the GPU check bundle, the engine' },
    { name: 'root-configs', path: `${file('vite.config.ts')}|${file('playwright.config.ts')}`, why: 'Vite (with the build plugins of scripts/) and Playwright' },
  ],
  [{ name: 'scripts', path: dir('scripts'), why: 'build plugins (prebuilt runs, catalogue chunks), the recorder and the trainer: they build or record the app, so they may import it' }],
  [
    { name: 'tools', path: dir('tools'), why: 'Node helpers that scripts, e2e, bench and unit tests share and that know no app: the GPU check bundle, the media probe, the figures a text gives' },
    { name: 'cli', path: dir('src/cli'), why: 'Node entry points over the engine and the facts' },
  ],
  [{ name: 'main', path: file('src/main.tsx'), why: 'the page entry' }],
  [{ name: 'shell', path: file('src/app/App.tsx'), why: 'header, layout, tabs' }],
  // Three siblings reading one timeline of beats: none imports another.
  [
    { name: 'render', path: dir('src/app/render'), why: 'the video: schedule, frame driver' },
    { name: 'screen', path: dir('src/app/screen'), why: 'the screen layout' },
    { name: 'walkthrough-panel', path: '^src/app/walkthrough/[^/]+\\.tsx$', why: 'the walkthrough\u2019s panel and presenter mode (React)' },
  ],
  [{ name: 'picture', path: dir('src/app/picture'), why: 'what the screen layout and the video draw, shared by both' }],
  [{ name: 'walkthrough', path: '^src/app/walkthrough/[^/]+\\.ts$', why: 'the timeline of beats, its runner and keys: what the panel, the screen and the video play' }],
  [{ name: 'walkthrough-chapters', path: dir('src/app/walkthrough/chapters'), why: 'the chapters, in the steps\u2019 language they define (chapter.ts, steps.ts)' }],
  [
    { name: 'view-timeline', path: view('timeline'), why: 'the scrub bar and the chart (shows the story\u2019s counter, marks divergence)' },
    { name: 'view-transfer', path: view('transfer'), why: 'one handoff with its block table, the protocol check' },
  ],
  [{ name: 'view-story', path: view('story'), why: 'the first screen: story, Explore drawer' }],
  [{ name: 'view-response', path: view('response'), why: 'the answer, token by token, with the decode backends' }],
  [
    { name: 'view-cluster', path: view('cluster'), why: 'page grids and their exports' },
    { name: 'view-compare', path: view('compare'), why: 'two runs compared' },
    { name: 'view-controls', path: view('controls'), why: 'switches, matrix' },
    { name: 'view-decode', path: view('decode'), why: 'decode backend panel' },
    { name: 'view-deployment', path: view('deployment'), why: 'your deployment: an operator\u2019s numbers, their bands and the replay on them' },
    { name: 'view-stage', path: view('stage'), why: 'the handoff picture' },
    { name: 'view-verify', path: view('verify'), why: 'the exhaustive check\u2019s panel' },
  ],
  [{ name: 'view-shared', path: view('shared'), why: 'evidence, badges, highlight ids, engine text, the moment hook: what every view uses' }],
  [{ name: 'moment', path: dir('src/app/moment'), why: 'one request at one instant, computed once for every view: the handoff clock\u2019s model, the stage\u2019s frame, the block table, the counters (pure: no React, no store)' }],
  [{ name: 'ui', path: dir('src/app/ui'), why: 'theme tokens, palette, icons, global styles' }],
  [
    { name: 'i18n', path: dir('src/app/i18n'), why: 'the catalogue and Intl formats' },
    { name: 'run', path: dir('src/app/run'), why: 'workers, their clients, data hooks' },
  ],
  [{ name: 'state', path: dir('src/app/state'), why: 'the store, the URL codec, the frame clock' }],
  [{ name: 'room', path: dir('src/room'), why: 'the workshop room\u2019s protocol, state machine, gain and export: pure TS shared by the room server and the page' }],
  [
    { name: 'gpu', path: dir('src/gpu'), why: 'WebGPU decode backends' },
    { name: 'data', path: dir('src/data'), why: 'facts.json schema and loader' },
  ],
  // The engine (pure), in layers of its own.
  [{ name: 'engine-runs', path: dir('src/engine/runs'), why: 'the runs the page and the video open (prebuilt and checked)' }],
  [
    { name: 'engine-incident', path: dir('src/engine/incident'), why: 'the 14-day replay, its traffic and milestones' },
    { name: 'engine-protocol', path: dir('src/engine/protocol'), why: 'the exhaustively explored model of the handoff' },
  ],
  [{ name: 'engine', path: '^src/engine/[^/]+$', why: 'pools, the simulation, the registry of switches, the decoders over pages' }],
  [{ name: 'engine-model', path: dir('src/engine/model'), why: 'the small trained transformer: its arithmetic, weights and trainer, knowing no pool' }],
  [{ name: 'engine-core', path: dir('src/engine/core'), why: 'the seeded PRNG and the tenants\u2019 vocabulary: what the engine and the transformer both stand on' }],
];

const ALL_PATHS = TIERS.flat().map((f) => f.path).join('|');

/** One rule per folder: nothing of its own tier but itself, nothing of a higher tier. */
const tierRules = TIERS.flatMap((tier, i) =>
  tier.map((folder) => {
    const above = TIERS.slice(0, i + 1).flat().filter((f) => f !== folder);
    return {
      name: `${folder.name}-imports-only-lower-tiers`,
      severity: 'error',
      comment: `${folder.why}. May not import: ${above.map((f) => f.name).join(', ')}.`,
      from: { path: folder.path },
      to: { path: above.map((f) => f.path).join('|') },
    };
  }),
);

module.exports = {
  forbidden: [
    ...tierRules,
    {
      name: 'every-module-in-a-tier',
      severity: 'error',
      comment: 'A module outside every tier of .dependency-cruiser.cjs has no rule: add its folder to TIERS.',
      from: { pathNot: `${ALL_PATHS}|(^|/)node_modules/` },
      to: {},
    },
    {
      name: 'node-programs-know-no-page',
      severity: 'error',
      comment: 'tools/ and src/cli run in Node over the engine, the GPU code and the facts; the page is not theirs to import.',
      from: { path: `${dir('tools')}|${dir('src/cli')}` },
      to: { path: '^src/(app/|main\\.tsx$)' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles of modules make layers meaningless. Cycles of types alone (the registry of switches names the config vocabulary it derives it from) vanish at run time and are allowed between modules of one folder; never between folders (below).',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      scope: 'folder',
      comment: 'No two folders import each other, even through others (a subfolder counts as a folder of its own).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-is-pure',
      severity: 'error',
      comment: 'src/engine runs unchanged in Node, a Worker and a page: nothing of the app, the CLI or the platform.',
      from: { path: '^src/engine/' },
      to: { pathNot: '^src/engine/|(^|/)node_modules/valibot/' },
    },
    { name: 'engine-no-builtins', severity: 'error', from: { path: '^src/engine/' }, to: { dependencyTypes: ['core'] } },
    {
      name: 'no-view-computes-a-handoff-position',
      severity: 'error',
      comment: 'The handoff\u2019s position (and the stage frame folded from it) is computed once, by the moment (src/app/moment/moment.ts); views read the moment and import nothing else of src/app/moment.',
      from: { path: '^src/app/(views|picture|screen|render)/' },
      to: { path: '^src/app/moment/', pathNot: '^src/app/moment/moment\\.ts$' },
    },
    {
      name: 'workers-only-through-their-clients',
      severity: 'error',
      comment: 'A worker module is started by its client in src/app/run, never imported by a view.',
      from: { path: '^src/', pathNot: '^src/app/run/' },
      to: { path: '\\.worker\\.ts$' },
    },
  ],
  options: {
    // Folder-scoped rules (no-folder-cycle) need the folder metrics.
    metrics: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.tsx?$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.app.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
