// The Node check that `npm test` and `npm start` make before anything else (scripts/run-tests.mjs and
// scripts/start-desktop.mjs import this module first; .ci/run runs it): on a Node that package.json's engines.node does
// not take they stop with one line saying what to do. `npm ci` refuses such a Node itself (engine-strict in .npmrc);
// this catches a Node switched after installing, whose failures would come later and say less. Written for old Nodes
// to parse.
import { readFileSync } from 'node:fs';

const read = (name) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
const { engines, devDependencies } = JSON.parse(read('package.json'));
const projectNode = read('.node-version').trim();
const electronMajor = devDependencies.electron.split('.')[0];

/** [major, minor, patch] of a version such as "24.15.0" or "24.15". */
const parts = (version) => [...version.split('.').map(Number), 0, 0].slice(0, 3);

/** Whether version `a` comes before `b`, both as parts. */
function older(a, b) {
  const differs = [0, 1, 2].find((i) => a[i] !== b[i]);
  return differs !== undefined && a[differs] < b[differs];
}

/**
 * engines.node as a test of a version's parts: alternatives joined by `||`, each `^X.Y.Z` (that major, from X.Y.Z on)
 * or `>=X.Y.Z`. Other forms are refused rather than misread.
 */
function takenBy(range) {
  const alternatives = range.split('||').map((alternative) => {
    const match = /^(\^|>=)(\d+(?:\.\d+){0,2})$/.exec(alternative.trim());
    if (!match) throw new Error(`package.json's engines.node is "${range}": scripts/supported-node.mjs reads ^X.Y.Z and >=X.Y.Z joined by ||`);
    return { sameMajor: match[1] === '^', from: parts(match[2]) };
  });
  return (version) => alternatives.some(({ sameMajor, from }) => (!sameMajor || version[0] === from[0]) && !older(version, from));
}

const version = process.versions.node;
if (!takenBy(engines.node)(parts(version))) {
  console.error(
    `Tokenbench needs Node ${engines.node} and is built and tested on Node ${projectNode} (the Node inside Electron ` +
      `${electronMajor}); this is Node ${version}: install the latest Node ${projectNode} (https://nodejs.org, or ` +
      `\`nvm install ${projectNode}\`) and run npm ci again.`,
  );
  process.exit(1);
}
