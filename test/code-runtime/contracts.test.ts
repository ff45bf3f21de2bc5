import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeRuntime, failureProblem } from '../../electron/engine/code-runtime';
import { tempDir } from '../support/test-engine';
import { ERRORS, failureOf, REQUEST, runCode, valueOf } from './calls';

/*
 * The node-bt and node22 contracts (vendor-surfaces.md §2.4–2.7), through real worker threads: what code is given,
 * what its returns become, and how each thing it can throw is classified.
 */

const runtime = createCodeRuntime({ engineUrl: () => 'http://127.0.0.1:9', log: () => undefined });
afterAll(() => runtime.close());

describe('node-bt request transforms', () => {
  it('get the request, the configuration, and no bt or applicationOptions without an application', async () => {
    const code = `module.exports = async function (req) {
      return { body: { seen: req.args, configuration: req.configuration, bt: req.bt, options: 'applicationOptions' in req } };
    };`;
    const value = valueOf(await runCode(runtime, code));
    expect(value).toEqual({ next: 'continue', body: { seen: REQUEST, configuration: { MERCHANT: 'acme' }, bt: null, options: false } });
  });

  it('return { body, headers }; a key left out is left out, strings and bytes go as they are', async () => {
    const both = valueOf(await runCode(runtime, `module.exports = async (req) => ({ body: 'a=1', headers: { 'X-Sig': 'abc', 'X-N': 2 } })`));
    expect(both).toEqual({ next: 'continue', body: 'a=1', headers: { 'X-Sig': 'abc', 'X-N': '2' } });
    expect(valueOf(await runCode(runtime, `module.exports = async (req) => ({ headers: { A: 'b' } })`))).toEqual({ next: 'continue', headers: { A: 'b' } });
    const bytes = valueOf(await runCode(runtime, `module.exports = async () => ({ body: Buffer.from('hi') })`));
    expect(bytes).toEqual({ next: 'continue', body: new Uint8Array([104, 105]) });
    // A date goes as JSON would send it.
    const json = valueOf(await runCode(runtime, `module.exports = async () => ({ body: { at: new Date(0) } })`));
    expect(json).toEqual({ next: 'continue', body: { at: '1970-01-01T00:00:00.000Z' } });
  });

  it('that return something other than an object are a runtime error', async () => {
    for (const returned of ['undefined', '"text"', '[1]', 'null']) {
      const error = failureOf(await runCode(runtime, `module.exports = async () => ${returned}`));
      expect(error).toMatchObject({ kind: 'runtime-error', status: 500, detail: 'Reactor Runtime Error' });
      expect(error.kind === 'custom-response' ? '' : error.errors.error[0]).toMatch(/returns \{ body, headers \}/);
    }
    const headers = failureOf(await runCode(runtime, `module.exports = async () => ({ headers: { A: { b: 1 } } })`));
    expect(headers).toMatchObject({ kind: 'runtime-error', status: 500, errors: { error: [expect.stringContaining('headers must map header names to strings')] } });
  });

  it('see response arguments without the status, in response transforms', async () => {
    const code = `module.exports = async (req) => ({ body: req.args })`;
    const args = { body: { id: 'ch_1' }, headers: { 'content-type': 'application/json' }, statusCode: 201 };
    const value = valueOf(await runCode(runtime, code, 'node-bt', { kind: 'proxy-response', args }));
    expect(value).toEqual({ next: 'continue', body: { body: { id: 'ch_1' }, headers: { 'content-type': 'application/json' } } });
  });
});

describe('errors thrown by node-bt code (§2.7)', () => {
  const classes = [
    ['AuthenticationError', 401, 'Authentication Failed'],
    ['AuthorizationError', 403, 'Forbidden'],
    ['BadRequestError', 400, 'Bad Request'],
    ['InvalidPaymentMethodError', 402, 'Invalid Payment Method'],
    ['InvalidReactorConfigurationError', 400, 'Invalid Reactor Configuration'],
    ['RateLimitError', 429, 'Rate Limit Exceeded'],
    ['ReactorRuntimeError', 500, 'Reactor Runtime Error'],
    ['ServiceUnavailableError', 503, 'Service Unavailable'],
  ] as const;

  it.each(classes)('%s answers %i "%s" with its errors', async (name, status, detail) => {
    const error = failureOf(await runCode(runtime, `const { ${name} } = ${ERRORS}; module.exports = async () => { throw new ${name}('card declined'); };`));
    expect(error).toEqual({ kind: 'reactor-error', status, detail, errors: { error: ['card declined'] } });
    expect(failureProblem(error as never)).toEqual({ title: 'One or more validation errors occurred.', status, detail, errors: { error: ['card declined'] } });
  });

  it('turn the constructor argument into the errors map as the vendor does', async () => {
    const errorsFor = async (argument: string) => {
      const error = failureOf(await runCode(runtime, `const { BadRequestError } = ${ERRORS}; module.exports = async () => { throw new BadRequestError(${argument}); };`));
      return error.kind === 'reactor-error' ? error.errors : null;
    };
    const fallback = ['Something went wrong. Please try again. If the problem persists, please contact support@basistheory.com.'];
    expect(await errorsFor(`['a', { b: 1 }, 3]`)).toEqual({ error: ['a', '{"b":1}', '3'] });
    expect(await errorsFor(`new Error('boom')`)).toEqual({ error: ['boom'] });
    expect(await errorsFor(`{ number: 'invalid', cvc: ['missing', 'short'], nested: { a: 1 }, empty: '' }`)).toEqual({
      number: ['invalid'],
      cvc: ['missing', 'short'],
      nested: ['{"a":1}'],
      empty: fallback,
    });
    expect(await errorsFor('')).toEqual({ error: fallback });
  });

  it('BasisTheoryReactorError takes any status, and a bundled copy of the classes is recognised by its fields', async () => {
    const base = failureOf(
      await runCode(runtime, `const { BasisTheoryReactorError } = ${ERRORS}; module.exports = async () => { throw new BasisTheoryReactorError({ message: 'Teapot', status: 418, errors: 'short and stout' }); };`),
    );
    expect(base).toEqual({ kind: 'reactor-error', status: 418, detail: 'Teapot', errors: { error: ['short and stout'] } });
    const bundled = failureOf(
      await runCode(
        runtime,
        `class RateLimitError extends Error { constructor() { super('Rate Limit Exceeded'); this.name = 'RateLimitError'; this.status = 429; this.errors = { error: ['slow down'] }; } }
         module.exports = async () => { throw new RateLimitError(); };`,
      ),
    );
    expect(bundled).toEqual({ kind: 'reactor-error', status: 429, detail: 'Rate Limit Exceeded', errors: { error: ['slow down'] } });
  });

  it('CustomHttpResponseError answers with its status, headers and body as given', async () => {
    const code = `const { CustomHttpResponseError } = ${ERRORS};
      module.exports = async () => { throw new CustomHttpResponseError({ status: 402, headers: { 'X-Reason': 'declined' }, body: { declined: true } }); };`;
    expect(failureOf(await runCode(runtime, code))).toEqual({ kind: 'custom-response', status: 402, headers: { 'X-Reason': 'declined' }, body: { declined: true } });
    const defaults = failureOf(await runCode(runtime, `const { CustomHttpResponseError } = ${ERRORS}; module.exports = async () => { throw new CustomHttpResponseError({ status: 204 }); };`));
    expect(defaults).toEqual({ kind: 'custom-response', status: 204, headers: {}, body: {} });
    // A status outside 100–599 throws when the error is made, which is then the code's runtime error.
    const invalid = failureOf(await runCode(runtime, `const { CustomHttpResponseError } = ${ERRORS}; module.exports = async () => { throw new CustomHttpResponseError({ status: 700 }); };`));
    expect(invalid).toMatchObject({ kind: 'runtime-error', status: 500, errors: { error: [expect.stringContaining('100 to 599')] } });
  });

  it('anything else thrown is a runtime error with its message', async () => {
    expect(failureOf(await runCode(runtime, `module.exports = async () => { throw new TypeError('x is undefined'); };`))).toEqual({
      kind: 'runtime-error',
      status: 500,
      detail: 'Reactor Runtime Error',
      errors: { error: ['x is undefined'] },
    });
    expect(failureOf(await runCode(runtime, `module.exports = async () => { throw 'plain'; };`))).toMatchObject({ status: 500, errors: { error: ['plain'] } });
    // Thrown from a timer the code started, outside its promise chain.
    const stray = failureOf(await runCode(runtime, `module.exports = () => new Promise(() => setTimeout(() => { throw new Error('late'); }, 5));`));
    expect(stray).toMatchObject({ kind: 'runtime-error', status: 500, errors: { error: ['late'] } });
  });

  it('code that does not compile, or exports no function, is 422 with the reason', async () => {
    const syntax = failureOf(await runCode(runtime, 'module.exports = async function (req) {\n  return { body: \n};'));
    expect(syntax).toMatchObject({ kind: 'compile-error', status: 422, errors: { error: [expect.stringMatching(/^SyntaxError: .*\(line 3\)$/)] } });
    const notAFunction = failureOf(await runCode(runtime, 'module.exports = { handler() {} };'));
    expect(notAFunction).toMatchObject({ kind: 'compile-error', status: 422, errors: { error: ['module.exports must be a function; it is a object'] } });
  });
});

describe('node-bt reactors', () => {
  it('get the invoke body\'s args and return raw and tokenize; nothing returned is {}', async () => {
    const code = `module.exports = async (req) => ({ raw: { got: req.args, merchant: req.configuration.MERCHANT }, tokenize: { type: 'token', data: 'x' } })`;
    const value = valueOf(await runCode(runtime, code, 'node-bt', { kind: 'reactor', args: { args: { amount: 5 }, callback_url: null } }));
    expect(value).toEqual({ image: 'node-bt', raw: { got: { amount: 5 }, merchant: 'acme' }, tokenize: { type: 'token', data: 'x' } });
    expect(valueOf(await runCode(runtime, 'module.exports = async () => {}', 'node-bt', { kind: 'reactor', args: {} }))).toEqual({ image: 'node-bt' });
  });
});

describe('node22', () => {
  it('request code gets event.req and a logger, no bt; returning req goes on, returning res answers', async () => {
    const onward = `module.exports = async (event) => {
      event.logger.info('signing', event.req.path);
      return { req: { body: { ...event.req.body, bt: 'bt' in event }, headers: { ...event.req.headers, 'X-Config': event.configuration.MERCHANT } } };
    };`;
    const outcome = await runCode(runtime, onward, 'node22');
    expect(valueOf(outcome)).toEqual({
      next: 'continue',
      body: { ...(REQUEST.body as object), bt: false },
      headers: { ...REQUEST.headers, 'X-Config': 'acme' },
    });
    expect(outcome.logs).toEqual([{ level: 'info', message: 'signing /v1/charges', atMs: expect.any(Number) }]);
    const answer = `module.exports = async () => ({ res: { statusCode: 202, headers: { 'X-Skipped': 'yes' }, body: { skipped: true } } })`;
    expect(valueOf(await runCode(runtime, answer, 'node22'))).toEqual({ next: 'respond', statusCode: 202, headers: { 'X-Skipped': 'yes' }, body: { skipped: true } });
    // The Terraform test's transform returns the event unchanged: it goes on with the request as it was.
    expect(valueOf(await runCode(runtime, 'module.exports = async (event) => event', 'node22'))).toEqual({ next: 'continue', body: REQUEST.body, headers: REQUEST.headers });
  });

  it('response code gets event.res with the status and may change it', async () => {
    const code = `module.exports = async ({ res }) => ({ res: { ...res, statusCode: res.statusCode + 1, body: { wrapped: res.body } } })`;
    const args = { body: { id: 'ch_1' }, headers: { 'x-a': '1' }, statusCode: 200 };
    expect(valueOf(await runCode(runtime, code, 'node22', { kind: 'proxy-response', args }))).toEqual({
      next: 'continue',
      statusCode: 201,
      headers: { 'x-a': '1' },
      body: { wrapped: { id: 'ch_1' } },
    });
  });

  it('reactors get the whole invoke body as req and answer with res', async () => {
    const code = `module.exports = async (event) => ({ res: { body: { echoed: event.req.args } } })`;
    const value = valueOf(await runCode(runtime, code, 'node22', { kind: 'reactor', args: { args: { n: 1 } } }));
    expect(value).toEqual({ image: 'node22', statusCode: 200, headers: {}, body: { echoed: { n: 1 } } });
  });

  it('a throw is a bad gateway naming the message, whatever was thrown', async () => {
    expect(failureOf(await runCode(runtime, `module.exports = async () => { throw new Error('processor down'); }`, 'node22'))).toEqual({
      kind: 'node22-error',
      status: 502,
      detail: 'Bad Gateway',
      errors: { error: ['processor down'] },
    });
    const reactorError = `const { BadRequestError } = ${ERRORS}; module.exports = async () => { throw new BadRequestError('x'); }`;
    expect(failureOf(await runCode(runtime, reactorError, 'node22'))).toMatchObject({ kind: 'node22-error', status: 502 });
  });

  it('a return of neither req nor res is a runtime error saying what to return', async () => {
    expect(failureOf(await runCode(runtime, 'module.exports = async () => ({ body: {} })', 'node22'))).toMatchObject({
      kind: 'runtime-error',
      status: 500,
      errors: { error: [expect.stringContaining('{ req: { body, headers } } to go on')] },
    });
  });

  it('dependencies come from the folder the caller names, at their pinned version, else are unavailable', async () => {
    const dir = tempDir('tokenbench-deps-');
    try {
      mkdirSync(join(dir, 'node_modules', 'shout'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', 'shout', 'package.json'), JSON.stringify({ name: 'shout', version: '1.2.3', main: 'index.js' }));
      writeFileSync(join(dir, 'node_modules', 'shout', 'index.js'), 'module.exports = (s) => s.toUpperCase();');
      const code = `const shout = require('shout'); module.exports = async () => ({ res: { body: shout('hi') } })`;
      const call = (dependencies: Record<string, string>, dependenciesDir?: string) =>
        runtime.run({ code, runtime: { image: 'node22', dependencies }, kind: 'reactor', args: {}, configuration: {}, dependenciesDir });
      expect(valueOf(await call({ shout: '1.2.3' }, dir))).toEqual({ image: 'node22', statusCode: 200, headers: {}, body: 'HI' });
      expect(failureOf(await call({ shout: '1.2.3' }))).toMatchObject({ kind: 'dependency-unavailable', errors: { error: [expect.stringContaining('cannot download')] } });
      expect(failureOf(await call({ shout: '2.0.0' }, dir))).toMatchObject({ kind: 'dependency-unavailable', errors: { error: [expect.stringContaining('holds 1.2.3')] } });
      // Undeclared, the same package is refused.
      expect(failureOf(await call({}, dir))).toMatchObject({ kind: 'node22-error', errors: { error: [expect.stringContaining('Cannot require "shout"')] } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
