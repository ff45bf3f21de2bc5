// The Node check that `npm test` and `npm start` make before anything else (scripts/run-tests.mjs and
// scripts/start-desktop.mjs import this module first): on a Node older than package.json's engines.node they stop with
// one line saying what to do. `npm ci` refuses such a Node itself (engine-strict in .npmrc); this catches a Node
// switched after installing, whose failures would come later and say less. Written for old Nodes to parse.
import { readFileSync } from 'node:fs';

const read = (name) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
const { engines, devDependencies } = JSON.parse(read('package.json'));
const projectNode = read('.node-version').trim();
const electronMajor = devDependencies.electron.split('.')[0];

const floor = /^>=(\d+\.\d+(?:\.\d+)?)$/.exec(engines.node)?.[1];
if (!floor) throw new Error(`package.json's engines.node is "${engines.node}": scripts/supported-node.mjs reads ">=X.Y" or ">=X.Y.Z"`);

/** Whether version `a` ("20.20.2") comes before `b` ("22.13"). */
function older(a, b) {
  const [x, y] = [a, b].map((version) => [...version.split('.').map(Number), 0, 0]);
  const differs = [0, 1, 2].find((i) => x[i] !== y[i]);
  return differs !== undefined && x[differs] < y[differs];
}

const version = process.versions.node;
if (older(version, floor)) {
  console.error(
    `Tokenbench needs Node ${floor} or newer, and is built and tested on Node ${projectNode} (the Node inside Electron ` +
      `${electronMajor}); this is Node ${version}: install Node ${projectNode} (https://nodejs.org, or ` +
      `\`nvm install ${projectNode}\`) and run npm ci again.`,
  );
  process.exit(1);
}
