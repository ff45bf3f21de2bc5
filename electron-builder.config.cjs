// `npm run dist`: the desktop installers (AppImage and deb, dmg, NSIS), built on a machine with internet (electron-builder
// downloads Electron; scripts/start.mjs --prepare builds better-sqlite3 for it and the app first).
const { afterPack } = require('./scripts/packaging/electron-fuses.cjs');

/** @type {import('electron-builder').Configuration} */
module.exports = {
  appId: 'dev.tokenbench.desktop',
  productName: 'Tokenbench',
  directories: { output: 'dist' },
  files: ['out/**/*', '.electron-native/better_sqlite3.node', 'package.json'],
  asar: true,
  // A native module cannot be loaded from inside the archive.
  asarUnpack: ['.electron-native/**'],
  // node_modules keeps better-sqlite3's Node build (tests, `serve`); the Electron build sits in .electron-native/,
  // which the app finds itself (electron/main/engine-options.ts).
  npmRebuild: false,
  afterPack,
  linux: { target: ['AppImage', 'deb'], category: 'Development', maintainer: 'Tokenbench' },
  mac: { target: 'dmg', category: 'public.app-category.developer-tools' },
  win: { target: 'nsis' },
};
