// The Electron fuses Tokenbench ships with, flipped into the packaged binary by electron-builder's afterPack hook
// (electron-builder.config.cjs), before any signing. Fuses are compiled-in switches a user's environment cannot undo:
// they close the ways of running our signed binary as something else.
const { flipFuses, FuseV1Options, FuseVersion } = require('@electron/fuses');
const { Arch } = require('electron-builder');

/** The fuse settings for one target platform (`darwin`, `win32`, `linux`). */
function fusesFor(platform) {
  return {
    version: FuseVersion.V1,
    // ELECTRON_RUN_AS_NODE would turn the app into a plain Node that runs any script with the app's identity.
    [FuseV1Options.RunAsNode]: false,
    // NODE_OPTIONS could preload code into the main process, which holds the vault's keys.
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    // --inspect would open a debugger port onto the main process.
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    // Cookies on disk encrypted with the OS key store.
    [FuseV1Options.EnableCookieEncryption]: true,
    // Electron checks the asar's embedded hash only on macOS and Windows; elsewhere the fuse is left as it comes.
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: platform === 'darwin' || platform === 'win32',
    // Never load an app folder placed beside the asar.
    [FuseV1Options.OnlyLoadAppFromAsar]: true,
    // GrantFileProtocolExtraPrivileges stays on: the renderer is loaded from file:// as ES modules, which need it.
  };
}

/** The packaged Electron binary (or, on macOS, the .app whose framework holds the fuses) in electron-builder's output. */
function electronBinaryIn(appOutDir, platform, productFilename, executableName) {
  if (platform === 'darwin') return `${appOutDir}/${productFilename}.app`;
  if (platform === 'win32') return `${appOutDir}/${productFilename}.exe`;
  return `${appOutDir}/${executableName}`;
}

/** electron-builder's afterPack hook. The arm64 macOS binary must be ad-hoc signed again once its bytes change. */
async function afterPack(context) {
  const platform = context.electronPlatformName;
  const { productFilename } = context.packager.appInfo;
  const executableName = context.packager.executableName ?? productFilename;
  const binary = electronBinaryIn(context.appOutDir, platform, productFilename, executableName);
  await flipFuses(binary, { ...fusesFor(platform), resetAdHocDarwinSignature: platform === 'darwin' && context.arch === Arch.arm64 });
}

module.exports = { fusesFor, electronBinaryIn, afterPack, default: afterPack };
