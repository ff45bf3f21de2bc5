/**
 * V8 settings for the process that runs the engine. V8 reads them when it sets up its heap, so they must be given
 * when that process starts: `npm run serve` (package.json), the desktop app (scripts/start-desktop.mjs, as Electron's
 * --js-flags) and the benchmark pass them (the benchmark to its fastify too, so both Node proxies run alike);
 * test/cli/engine-node-flags.test.ts checks that the first two carry these.
 *
 * --initial-old-space-size=96: no full GC while the old generation is below 96 MB. Without it, sustained large
 * bodies can leave the proxy running back-to-back full GCs, at twice the CPU per request, until it restarts. The
 * proxy keeps almost nothing, so V8 sets the next full GC's limit close above the live heap (about 16 + 8 MB + the
 * new space), yet counts every Buffer allocated since the last full GC against that limit; at 100 KB per body some
 * 20 MB of dead Buffers wait for each young-generation GC. Once one full GC happens under that load, every next
 * one starts as soon as the last ends. 96 MB leaves the Buffers the 64 MB V8 itself allows external memory before
 * it collects for it, above a 16 MB live heap and a 16 MB new space. Measured in the README (Performance).
 */
export const ENGINE_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=96'];
