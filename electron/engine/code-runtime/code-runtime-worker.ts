import { parentPort } from 'node:worker_threads';
import { LruCache } from '../lru-cache';
import { btClient, codeRequire } from './allowed-modules';
import type { CodeFailure, CodeValue } from './code-call';
import type { Contract, InvocationScope } from './contract';
import { dependencyRequire, missingDependencies } from './dependencies';
import { classifyThrown, compileError, failure, runtimeError } from './failures';
import { LogCapture } from './log-capture';
import { CODE_FILENAME, compileModule, type ModuleFactory, type Require } from './module-source';
import { node22Contract } from './node22-contract';
import { nodeBtContract } from './node-bt-contract';
import { describe } from './returned-values';
import type { FromWorker, ToWorker, WorkerCall, WorkerResult } from './worker-messages';

/*
 * A code runtime worker: runs one invocation at a time, in its own thread and heap, and answers with the classified
 * outcome and the captured log. The pool stops it when an invocation runs past its time, and replaces it.
 */

const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);

/** Compiled code by its source: the proxies and reactors in use, compiled once per worker. */
const modules = new LruCache<string, ModuleFactory>(64);
/** basis-theory-js clients by engine URL and key. */
const clients = new LruCache<string, Promise<unknown>>(32);

/** An invocation's end short of a value. */
class Failed extends Error {
  constructor(readonly failure: CodeFailure) {
    super(failure.kind);
  }
}

const fail = (failure: CodeFailure) => new Failed(failure);

/** The function `module.exports` holds once the code's module body has run. */
function handlerOf(call: WorkerCall, require: Require, console: unknown): (argument: unknown) => unknown {
  let factory: ModuleFactory;
  try {
    factory = modules.getOrCreate(call.code, () => compileModule(call.code));
  } catch (error) {
    throw fail(compileError(`${(error as Error).name}: ${(error as Error).message}`));
  }
  const module: { exports: unknown } = { exports: {} };
  try {
    factory.call(module.exports, module.exports as Record<string, unknown>, require, module, CODE_FILENAME, '/code', console);
  } catch (error) {
    throw fail(classifyThrown(error, call.runtime.image));
  }
  if (typeof module.exports !== 'function') throw fail(compileError(`module.exports must be a function; it is ${describe(module.exports)}`));
  return module.exports as (argument: unknown) => unknown;
}

/** node22's declared dependencies, loaded from the call's folder. */
function dependenciesOf(call: WorkerCall) {
  const missing = missingDependencies(call.runtime, call.dependenciesDir);
  if (missing) throw fail(failure('dependency-unavailable', 500, 'Dependency Unavailable', missing));
  const names = Object.keys(call.runtime.dependencies ?? {});
  return names.length > 0 ? { names: new Set(names), load: dependencyRequire(call.dependenciesDir!) } : undefined;
}

/** Rejects with what the code threw outside its promise chain (a timer's callback) while `call` runs. */
let stray: ((thrown: unknown) => void) | null = null;
process.on('uncaughtException', (thrown) => stray?.(thrown));
process.on('unhandledRejection', (thrown) => stray?.(thrown));

async function invoke(call: WorkerCall, capture: LogCapture): Promise<CodeValue> {
  const { image } = call.runtime;
  const contract: Contract = image === 'node22' ? node22Contract : nodeBtContract;
  const require = codeRequire({ engineUrl: call.engineUrl, image, dependencies: image === 'node22' ? dependenciesOf(call) : undefined });
  const handler = handlerOf(call, require, capture.console());
  const key = call.applicationKey;
  const scope: InvocationScope = {
    configuration: call.configuration,
    ...(key && { applicationOptions: { apiKey: key, environment: call.engineUrl } }),
    bt: key && image === 'node-bt' ? await clients.getOrCreate(`${call.engineUrl} ${key}`, () => btClient(call.engineUrl, key)) : null,
    logger: capture.logger(),
  };
  let returned: unknown;
  try {
    returned = await new Promise((resolve, reject) => {
      stray = reject;
      Promise.resolve(handler(contract.argument(call, scope))).then(resolve, reject);
    });
  } catch (thrown) {
    throw fail(classifyThrown(thrown, image));
  } finally {
    stray = null;
  }
  return contract.value(call.kind, returned);
}

async function run(call: WorkerCall): Promise<FromWorker> {
  const capture = new LogCapture(call.logLimits, (log) => post({ type: 'log', log }));
  let result: WorkerResult;
  try {
    result = { ok: true, value: await invoke(call, capture) };
  } catch (error) {
    // Past the code's own failures, whatever else stopped it (a client that cannot be made) is its runtime error too.
    result = { ok: false, error: error instanceof Failed ? error.failure : runtimeError((error as Error).message) };
  }
  capture.close();
  return { type: 'done', result };
}

port.on('message', (message: ToWorker) => {
  void run(message.call).then(post);
});
post({ type: 'ready' });
