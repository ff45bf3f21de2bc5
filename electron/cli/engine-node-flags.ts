/**
 * V8 settings for the process that runs the engine. V8 reads them only when it sets up its heap, so every launcher
 * passes them at start: `npm run serve` (package.json), `npm start` in both its modes (scripts/start.mjs) and the
 * benchmark; test/cli/engine-node-flags.test.ts checks the first two.
 *
 * --initial-old-space-size=96: no full GC while the old generation is below 96 MB. The proxy keeps almost nothing
 * alive, so without a floor V8 sets its full-GC limit just above a small heap, counts dead Buffers against it, and
 * under large bodies can run full GCs back to back (docs/performance-log.md, Findings, explains the 96).
 */
export const ENGINE_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=96'];
