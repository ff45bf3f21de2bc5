import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeRuntime, type CodeRuntime } from '../../electron/engine/code-runtime';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { failureOf, runCode, valueOf } from './calls';

/* What `require` reaches from code (vendor-surfaces.md §2.4), and the `bt` client bound to this engine. */

let t: TestEngine;
let runtime: CodeRuntime;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  runtime = createCodeRuntime({ engineUrl: () => t.url, log: () => undefined, poolSize: 1 });
});
afterAll(async () => {
  await runtime.close();
  await t.stop();
});

const messageOf = async (code: string, image: 'node-bt' | 'node22' = 'node-bt') => {
  const error = failureOf(await runCode(runtime, code, image));
  return error.kind === 'custom-response' ? null : { kind: error.kind, message: error.errors.error[0] };
};

describe('require', () => {
  it.each(['fs', 'node:fs', 'child_process', 'net', 'vm', 'worker_threads', 'http', 'left-pad'])('refuses %s, naming it', async (name) => {
    expect(await messageOf(`const m = require('${name}'); module.exports = async () => ({})`)).toEqual({
      kind: 'runtime-error',
      message: expect.stringMatching(new RegExp(`^Cannot require "${name}": Tokenbench's code runtime provides `)),
    });
  });

  it("gives the vendor's crypto-js, json-stable-stringify and jsonpath, as transforms use them", async () => {
    const code = `module.exports = async () => {
      const CryptoJS = require('crypto-js');
      const stringify = require('json-stable-stringify');
      const jp = require('jsonpath');
      return { body: {
        sha256: CryptoJS.SHA256('m').toString(CryptoJS.enc.Hex),
        stable: stringify({ b: 1, a: [2, { d: 3, c: 4 }] }),
        numbers: jp.query({ cards: [{ number: '1' }, { number: '2' }] }, '$.cards[*].number'),
      } };
    }`;
    expect(valueOf(await runCode(runtime, code))).toMatchObject({
      body: {
        sha256: createHash('sha256').update('m').digest('hex'),
        stable: '{"a":[2,{"c":4,"d":3}],"b":1}',
        numbers: ['1', '2'],
      },
    });
  });

  it('refuses import() too', async () => {
    expect(await messageOf(`module.exports = async () => { await import('fs'); return {}; }`)).toEqual({
      kind: 'runtime-error',
      message: expect.stringContaining('dynamic import'),
    });
  });

  it("gives Node's crypto, buffer, url, querystring and util, axios, basis-theory-js and the error module", async () => {
    const code = `module.exports = async () => {
      const { createHmac } = require('crypto');
      const { Buffer: B } = require('node:buffer');
      const { URL: U } = require('url');
      const qs = require('querystring');
      const { format } = require('util');
      const axios = require('axios');
      const { BasisTheory } = require('@basis-theory/basis-theory-js');
      const { BadRequestError } = require('@basis-theory/basis-theory-reactor-formulas-sdk-js');
      return { body: {
        hmac: createHmac('sha256', 'k').update('m').digest('hex'),
        base64: B.from('hi').toString('base64'),
        host: new U('https://api.example.com/v1').host,
        query: qs.stringify({ a: 1, b: 'x y' }),
        formatted: format('%s-%d', 'a', 1),
        axios: typeof axios.post,
        sdk: typeof BasisTheory,
        error: new BadRequestError().status,
      } };
    };`;
    expect(valueOf(await runCode(runtime, code))).toEqual({
      next: 'continue',
      body: {
        hmac: createHmac('sha256', 'k').update('m').digest('hex'),
        base64: 'aGk=',
        host: 'api.example.com',
        query: 'a=1&b=x%20y',
        formatted: 'a-1',
        axios: 'function',
        sdk: 'function',
        error: 400,
      },
    });
  });
});

describe('the bt client', () => {
  it("reaches this engine with the call's application key", async () => {
    const code = `module.exports = async (req) => {
      const token = await req.bt.tokens.create({ type: 'token', data: req.args.body.secret });
      return { body: { id: token.id, environment: req.applicationOptions.environment, key: req.applicationOptions.apiKey === req.configuration.KEY } };
    };`;
    const outcome = await runCode(runtime, code, 'node-bt', {
      applicationKey: t.privateKey,
      configuration: { KEY: t.privateKey },
      args: { body: { secret: 'created by a transform' }, headers: {}, method: 'POST', path: '', query: '' },
    });
    const value = valueOf(outcome);
    const body = value as { body: { id: string; environment: string; key: boolean } };
    expect(body.body.environment).toBe(t.url);
    expect(body.body.key).toBe(true);
    const read = await t.call('GET', `/tokens/${body.body.id}`, { key: t.privateKey });
    expect(read.status).toBe(200);
  });

  it('basis-theory-js made by the code reaches this engine too, even when told the hosted URL', async () => {
    const code = `module.exports = async (req) => {
      const { BasisTheory } = require('@basis-theory/basis-theory-js');
      const bt = await new BasisTheory().init(req.applicationOptions.apiKey, { apiBaseUrl: 'https://api.basistheory.com' });
      const page = await bt.applications.list();
      return { body: { applications: page.data.length } };
    };`;
    const outcome = await runCode(runtime, code, 'node-bt', { applicationKey: t.managementKey });
    expect(valueOf(outcome)).toEqual({ next: 'continue', body: { applications: 2 } });
  });
});
