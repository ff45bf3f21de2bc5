// `npm test` and `npm start` check the running Node before anything else (scripts/supported-node.mjs): on a Node that
// package.json's engines.node does not take they stop at once with one line naming the Node needed and how to get it.
// Another Node is played by this one, presenting itself with another version number.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const { engines, devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const projectNode = readFileSync(join(root, '.node-version'), 'utf8').trim();

/** Runs node with `args` as a Node of `version` would, from the project's folder. */
function nodeAs(version: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const presentAs = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`;
  return spawnSync(process.execPath, ['--import', presentAs, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
}

const advice = (version: string) =>
  `Tokenbench needs Node ${engines.node} and is built and tested on Node ${projectNode} (the Node inside Electron ` +
  `${devDependencies.electron.split('.')[0]}); this is Node ${version}: install the latest Node ${projectNode} ` +
  `(https://nodejs.org, or \`nvm install ${projectNode}\`) and run npm ci again.`;

describe('the Node check', () => {
  it('names Node 24, the Node inside Electron 45', () => {
    expect(projectNode).toBe('24');
    expect(advice('20.20.2')).toContain('built and tested on Node 24 (the Node inside Electron 45)');
  });

  it.each(['run-tests.mjs', 'start-desktop.mjs'])('stops scripts/%s on Node 20 at once, with one line saying what to do', (script) => {
    const { status, stdout, stderr } = nodeAs('20.20.2', [join(root, 'scripts', script)]);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${advice('20.20.2')}\n`);
    expect(status).toBe(1);
  });

  const check = ['--input-type=module', '--eval', "import './scripts/supported-node.mjs'; console.log('went on');"];

  it.each(['20.20.2', '22.22.1', '23.11.0', '24.14.1', '25.9.0', '27.0.0'])('stops Node %s, which engines.node does not take', (version) => {
    const { status, stdout, stderr } = nodeAs(version, check);
    expect({ status, stdout, stderr }).toEqual({ status: 1, stdout: '', stderr: `${advice(version)}\n` });
  });

  it.each(['22.22.2', '24.15.0', '24.22.3', '26.12.1'])('lets Node %s through without a word', (version) => {
    const { status, stdout, stderr } = nodeAs(version, check);
    expect({ status, stdout, stderr }).toEqual({ status: 0, stdout: 'went on\n', stderr: '' });
  });
});
