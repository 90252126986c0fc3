/**
 * The project's layering, checked in `npm test` (npm run check:deps). Arrows point downward only:
 *
 *   src/main.tsx, src/app/App.tsx   the shell
 *   src/app/render/ | src/app/screen/ | the walkthrough's panel (walkthrough/*.tsx)
 *                                   three siblings: the video's driver, the live screen layout, the page's walkthrough
 *   src/app/picture/                the screen layout's picture (Screen, ScreenPicture), shared by the video and the screen
 *   src/app/walkthrough/*.ts        chapters, their timeline of beats, the runner, the presenter's keys
 *   src/app/views/                  what the page draws
 *   src/app/i18n/, src/app/run/     text and formats; workers, their clients and data hooks
 *   src/app/state/                  the store, the URL codec, the frame clock
 *   src/gpu/, src/data/, src/engine/
 *
 * src/engine is pure: it imports nothing else of the project and no Node built-in.
 */
const app = (folder) => `^src/app/${folder}/`;
const upward = (name, from, to) => ({ name, severity: 'error', from: { path: from }, to: { path: to } });

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make layers meaningless. Cycles of types alone (the registry of switches names the config and protocol vocabulary it derives them from) vanish at run time and are allowed.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'engine-is-pure',
      severity: 'error',
      comment: 'src/engine runs unchanged in Node, a Worker and a page: nothing of the app, the CLI or the platform.',
      from: { path: '^src/engine/' },
      to: { pathNot: '^(src/engine/|node_modules/valibot/)' },
    },
    { name: 'engine-no-builtins', severity: 'error', from: { path: '^src/engine/' }, to: { dependencyTypes: ['core'] } },
    // Inside the engine the root modules sit below incident/, runs/ and protocol/ (type-only
    // references to the protocol model's vocabulary, from the registry of switches, are allowed).
    { name: 'engine-root-below-subfolders', severity: 'error', from: { path: '^src/engine/[^/]+$' }, to: { path: '^src/engine/(incident|runs|protocol)/', dependencyTypesNot: ['type-only'] } },
    { name: 'engine-incident-below-runs', severity: 'error', from: { path: '^src/engine/(incident|protocol)/' }, to: { path: '^src/engine/runs/' } },
    { name: 'lower-folders-know-no-app', severity: 'error', from: { path: '^src/(gpu|data|engine)/' }, to: { path: '^src/(app|cli)/' } },
    { name: 'cli-knows-no-app', severity: 'error', from: { path: '^src/cli/' }, to: { path: '^src/app/' } },
    upward('state-is-below-the-app', app('state'), '^src/app/(run|i18n|views|walkthrough|picture|render|screen)/|^src/app/App\\.tsx$'),
    upward('run-is-below-views', app('run'), '^src/app/(i18n|views|walkthrough|picture|render|screen)/|^src/app/App\\.tsx$'),
    upward('i18n-is-below-views', app('i18n'), '^src/app/(run|views|walkthrough|picture|render|screen)/|^src/app/App\\.tsx$'),
    upward('views-are-below-the-walkthrough', app('views'), '^src/app/walkthrough/|^src/app/App\\.tsx$'),
    upward('walkthrough-is-below-the-shell', app('walkthrough'), '^src/app/App\\.tsx$'),
    // The video, the screen layout and the walkthrough's panel are siblings: none imports another,
    // and what they share (the picture, the chapters' timeline) sits below them.
    upward('render-knows-no-screen', app('render'), '^src/app/screen/|^src/app/walkthrough/[^/]+\\.tsx$'),
    upward('screen-knows-no-render', app('screen'), '^src/app/render/|^src/app/walkthrough/[^/]+\\.tsx$'),
    upward('walkthrough-knows-no-render-or-screen', app('walkthrough'), '^src/app/(render|screen|picture)/'),
    upward('picture-is-below-render-and-screen', app('picture'), '^src/app/(render|screen)/|^src/app/walkthrough/[^/]+\\.tsx$|^src/app/App\\.tsx$'),
    upward('views-are-below-the-picture', app('views'), '^src/app/(render|screen|picture)/'),
    {
      name: 'workers-only-through-their-clients',
      severity: 'error',
      comment: 'A worker module is started by its client in src/app/run, never imported by a view.',
      from: { path: '^src/', pathNot: '^src/app/run/' },
      to: { path: '\\.worker\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.tsx?$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.app.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
