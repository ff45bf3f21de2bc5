import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../electron/cli/serve-options';
import { freePort } from '../support/free-port';
import { runServe, startServe, type ServeProcess } from '../support/serve-process';
import { callApi } from '../support/test-engine';

/** `serve --public-url` and the safe defaults beyond loopback, as the operator starts and reads them. */
describe('--public-url and the beyond-loopback flags, parsed', () => {
  it('takes http and https origins, repeated, with or without a trailing slash', () => {
    const options = parseServeArgs(['--public-url', 'https://Tokenbench.Example.com/', '--public-url', 'http://tokenbench.test:4780']);
    expect(options).toMatchObject({ publicUrls: ['https://Tokenbench.Example.com/', 'http://tokenbench.test:4780'] });
    expect(parseServeArgs([])).toMatchObject({ publicUrls: undefined, allowCode: undefined, denyPrivateDestinations: undefined });
  });

  it('turns --allow-private-destinations into an explicit choice, and --allow-code into allowCode', () => {
    expect(parseServeArgs(['--allow-private-destinations'])).toMatchObject({ denyPrivateDestinations: false });
    expect(parseServeArgs(['--deny-private-destinations'])).toMatchObject({ denyPrivateDestinations: true });
    expect(parseServeArgs(['--allow-code'])).toMatchObject({ allowCode: true });
  });

  it.each([
    [['--public-url', 'tokenbench.test'], '"tokenbench.test" is not an origin'],
    [['--public-url', 'ftp://tokenbench.test'], 'is not an http or https origin'],
    [['--public-url', 'https://tokenbench.test/workbench'], 'give only scheme://host[:port]'],
    [['--public-url', 'https://user:pw@tokenbench.test'], 'give only scheme://host[:port]'],
    [['--deny-private-destinations', '--allow-private-destinations'], '--deny-private-destinations and --allow-private-destinations exclude each other'],
  ])('%j is a usage error saying why', (args, message) => {
    expect(() => parseServeArgs(args)).toThrow(message);
  });

  it('exits with 2 on a bad --public-url, in one line', async () => {
    const { code, output } = await runServe(['--public-url', 'https://tokenbench.test/ui/']);
    expect(code).toBe(2);
    expect(output).toMatch(/^tokenbench serve: Public URL "https:\/\/tokenbench\.test\/ui\/" is not an origin: give only scheme:\/\/host\[:port\]/);
  });
});

describe('serve bound beyond loopback with --public-url', () => {
  let p: ServeProcess;
  afterAll(async () => {
    p?.child.kill('SIGTERM');
    await p?.exited;
  });

  it('answers under its public name, prints the workbench there, and says which safe defaults are in force', async () => {
    const port = await freePort();
    const name = `tokenbench.test:${port}`;
    p = await startServe(['--in-memory', '--host', '0.0.0.0', '--port', String(port), '--echo-port', '0', '--public-url', `http://${name}`]);
    while (!p.output().includes('Keep the default')) await once(p.child.stderr!, 'data');
    const out = p.output();
    expect(out).toContain(`Public URL: http://${name}`);
    expect(out).toMatch(new RegExp(`Workbench: (http://${name}/ui/#session=|not built)`));
    expect(out).toContain('private destinations refused');
    expect(out).toContain('(--allow-private-destinations lets them)');
    expect(out).toContain('code transforms and reactors refused, saved or called (--allow-code runs them)');
    expect(out).toContain('fixed by these flags, never chosen in Settings');
    expect((await callApi(p.url, 'GET', '/tokens', { key: p.privateKey, headers: { host: name } })).status).toBe(200);
    expect((await callApi(p.url, 'GET', '/tokens', { key: p.privateKey, headers: { host: `other.test:${port}` } })).status).toBe(403);
  });
});
