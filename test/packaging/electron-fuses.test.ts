import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FuseState, FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/test-engine';

const require = createRequire(import.meta.url);
const { afterPack, fusesFor } = require('../../scripts/packaging/electron-fuses.cjs');
const builderConfig = require('../../electron-builder.config.cjs');

const dir = tempDir('tokenbench-fuses-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for an Electron binary: some bytes, the fuse sentinel, wire version 1, then eight fuses as Electron ships them. */
function fakeElectron(path: string): void {
  const shipped = [FuseState.ENABLE, FuseState.DISABLE, FuseState.ENABLE, FuseState.ENABLE, FuseState.DISABLE, FuseState.DISABLE, FuseState.DISABLE, FuseState.ENABLE];
  const wire = Buffer.from([1, shipped.length, ...shipped]);
  writeFileSync(path, Buffer.concat([Buffer.alloc(64, 7), Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'), wire, Buffer.alloc(64, 7)]));
}

describe('the Electron fuses of a packaged app', () => {
  it('turns off running as Node, NODE_OPTIONS and --inspect, and turns on cookie encryption and asar-only loading everywhere', () => {
    for (const platform of ['linux', 'darwin', 'win32']) {
      expect(fusesFor(platform)).toMatchObject({
        [FuseV1Options.RunAsNode]: false,
        [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
        [FuseV1Options.EnableNodeCliInspectArguments]: false,
        [FuseV1Options.EnableCookieEncryption]: true,
        [FuseV1Options.OnlyLoadAppFromAsar]: true,
      });
    }
  });

  it('checks the asar integrity where Electron can (macOS, Windows)', () => {
    expect(fusesFor('darwin')[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    expect(fusesFor('win32')[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    expect(fusesFor('linux')[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(false);
  });

  it("flips them in electron-builder's afterPack, in the binary it packed", async () => {
    const appOutDir = join(dir, 'linux-unpacked');
    mkdirSync(appOutDir);
    const binary = join(appOutDir, 'tokenbench');
    fakeElectron(binary);
    const before = readFileSync(binary);

    await afterPack({ appOutDir, electronPlatformName: 'linux', arch: 1, packager: { appInfo: { productFilename: 'Tokenbench' }, executableName: 'tokenbench' } });

    const wire = await getCurrentFuseWire(binary);
    expect(wire[FuseV1Options.RunAsNode]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(FuseState.ENABLE);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(FuseState.ENABLE);
    // Fuses left alone keep what Electron shipped, and nothing else in the file moves.
    expect(wire[FuseV1Options.GrantFileProtocolExtraPrivileges]).toBe(FuseState.ENABLE);
    expect(readFileSync(binary).length).toBe(before.length);
  });

  it('is the hook of a packaging configuration electron-builder accepts, for AppImage, deb, dmg and NSIS', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config');
    const { DebugLogger } = require('builder-util');
    await expect(validateConfiguration(builderConfig, new DebugLogger(false))).resolves.toBeUndefined();
    expect(builderConfig.afterPack).toBe(afterPack);
    expect([builderConfig.linux.target, builderConfig.mac.target, builderConfig.win.target].flat()).toEqual(['AppImage', 'deb', 'dmg', 'nsis']);
  });
});
