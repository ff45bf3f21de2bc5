// The house's import rules, checked by `npm run check:deps` (and so by `npm test`). Each rule has a violating fixture
// in test/house/fixtures/depcruise/<rule name>/ that test/house/dependency-rules.test.ts expects to be reported.
// Paths are relative to where the cruise starts, so the same rules apply to the fixtures; `node_modules` may sit
// behind a symlink (worktrees), hence `(^|/)node_modules/` rather than `^node_modules/`.
const npmPackage = '(^|/)node_modules/';

/** A forbidden import: `comment` is what the cruiser prints beside each violation. */
const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    rule(
      'no-circular',
      'A cycle makes two modules one module in two files; type-only imports count (tsPreCompilationDeps).',
      {},
      { circular: true },
    ),
    rule(
      'engine-without-electron',
      'The engine and the CLI run under plain Node, where loading `electron` tries to download its binary; shared/ is ' +
        'loaded by them too. The folder rules below keep them from reaching it through the Electron-side folders.',
      { path: '^(electron/(engine|cli)|shared)/' },
      { path: `${npmPackage}electron/|^electron$` },
    ),
    rule(
      'browser-mode-without-electron',
      "`npm start`'s browser mode runs the desktop app's engine under plain Node, beside the Electron shell in main/: " +
        'nothing it loads, however indirectly, may load `electron`.',
      { path: '^electron/main/browser-mode\\.ts$' },
      { path: `${npmPackage}electron/|^electron$`, reachable: true },
    ),
    rule(
      'large-libraries-load-when-used',
      'curlconverter (a pasted cURL command) and jose (an encrypted request) are imported with import() where they are ' +
        'used: loaded with the engine, they would weigh on every start for a feature few starts use.',
      { path: '^(electron/(engine|cli)|shared)/' },
      { path: `${npmPackage}(curlconverter|jose)/`, dynamic: false, dependencyTypesNot: ['type-only'] },
    ),
    rule(
      'renderer-imports-shared-and-itself',
      'The renderer reaches the engine only through the contract in shared/; npm packages are bundled.',
      { path: '^renderer/' },
      { pathNot: `^(renderer|shared)/|${npmPackage}` },
    ),
    rule(
      'server-and-access-not-into-vault',
      'Serving and access control sit below the vault feature; what they share with it lives in storage/.',
      { path: '^electron/engine/(server|access)/' },
      { path: '^electron/engine/vault/' },
    ),
    rule(
      'engine-entry-is-the-top',
      'index.ts and start-engine.ts assemble the features; a feature importing them points back up.',
      { path: '^electron/engine/[^/]+/' },
      { path: '^electron/engine/(index|start-engine)\\.ts$' },
    ),
    rule(
      'engine-not-into-hosts',
      'The engine does not know whether Electron, the CLI or a test started it.',
      { path: '^electron/engine/' },
      { path: '^(electron/(main|preload|cli)|renderer)/' },
    ),
    rule(
      'hosts-stay-apart',
      'The Electron main process and the CLI each start the engine themselves, never through each other.',
      { path: '^electron/(main|cli)/' },
      { path: '^(electron/(main|preload|cli)|renderer)/', pathNot: '^electron/$1/' },
    ),
    rule(
      'preload-imports-shared-only',
      'The sandboxed preload sees only the contract in shared/ and `electron`, never the engine.',
      { path: '^electron/preload/' },
      { pathNot: `^(electron/preload|shared)/|${npmPackage}` },
    ),
    rule(
      'features-not-into-workbench',
      'The workbench model reads the engine features; a feature importing the workbench points back up.',
      { path: '^electron/engine/', pathNot: '^electron/engine/(workbench/|index\\.ts$|start-engine\\.ts$)' },
      { path: '^electron/engine/workbench/' },
    ),
    rule(
      'storage-is-the-floor',
      'Every feature builds on storage/, so storage/ imports no other part of the engine.',
      { path: '^electron/engine/storage/' },
      { path: '^electron/', pathNot: '^electron/engine/storage/' },
    ),
    rule(
      'shared-imports-shared-only',
      'shared/ is loaded by the engine, the preload and the renderer alike, so it depends on none of them (nor on Node).',
      { path: '^shared/' },
      { pathNot: `^shared/|${npmPackage}` },
    ),
    rule('resolvable', 'An import the cruiser cannot resolve is invisible to every rule above.', {}, { couldNotResolve: true }),
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // No tsConfig: tsconfig.json declares no paths or baseUrl, and leaving it out lets the fixtures use this file as is.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
