import * as basisTheoryJs from '@basis-theory/basis-theory-js';
import { createRequire } from 'node:module';
import type { RuntimeImage } from './code-call';
import type { Require } from './module-source';
import { reactorErrorsModule } from './reactor-errors';

/*
 * The modules code may `require` (vendor-surfaces.md §2.4): a fixed set, the vendor's whitelist as far as Tokenbench
 * bundles it, plus node22's declared dependencies. Anything else is an error naming the module. This keeps code
 * portable to the hosted runtime; it is no sandbox (README, security model).
 */

export const ERRORS_MODULE = '@basis-theory/basis-theory-reactor-formulas-sdk-js';
const BASIS_THEORY_JS = '@basis-theory/basis-theory-js';

/** Node's own modules that transforms commonly use, by their bare names (`node:` is accepted too). */
const NODE_MODULES = new Set(['crypto', 'buffer', 'url', 'querystring', 'util']);

/** On the vendor's whitelist, commonly used by transforms, and among Tokenbench's dependencies (pinned). */
const VENDOR_PACKAGES = new Set(['crypto-js', 'json-stable-stringify', 'jsonpath']);

/** Each loaded on first use: most code needs none of them. */
const vendorPackages = new Map<string, unknown>();
function loadVendorPackage(name: string): unknown {
  if (!vendorPackages.has(name)) vendorPackages.set(name, createRequire(__filename)(name) as unknown);
  return vendorPackages.get(name);
}

/** axios is basis-theory-js's own dependency: that copy, so the version is the one the SDK ships with. */
let axios: unknown;
const loadAxios = (): unknown => (axios ??= createRequire(require.resolve(BASIS_THEORY_JS))('axios') as unknown);

const VENDOR_HOSTS = /(^|\.)basistheory\.com$/i;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The engine's URL as basis-theory-js can use it: that SDK switches every host but `localhost` to https, so a
 * loopback address is named `localhost`.
 */
function sdkBaseUrl(engineUrl: string): string {
  const url = new URL(engineUrl);
  if (LOOPBACK.has(url.hostname)) url.hostname = 'localhost';
  return url.origin;
}

/**
 * basis-theory-js whose clients reach this engine: the default base URL, the vendor's own hosts and the engine's own
 * URL (`applicationOptions.environment`) become the engine's as the SDK can reach it, so code written for the hosted
 * service runs unchanged.
 */
function boundBasisTheoryJs(engineUrl: string) {
  const apiBaseUrl = sdkBaseUrl(engineUrl);
  const engineOrigin = new URL(engineUrl).origin;
  class BasisTheory extends basisTheoryJs.BasisTheory {
    // The SDK's overloads differ only in browser Elements, which code here cannot load.
    init = ((apiKey: string | undefined, options: { apiBaseUrl?: string } = {}) => {
      const given = options.apiBaseUrl === undefined ? undefined : new URL(options.apiBaseUrl);
      const base = given === undefined || VENDOR_HOSTS.test(given.hostname) || given.origin === engineOrigin ? apiBaseUrl : options.apiBaseUrl;
      return super.init(apiKey, { ...options, apiBaseUrl: base });
    }) as basisTheoryJs.BasisTheory['init'];
  }
  return Object.freeze({ ...basisTheoryJs, BasisTheory });
}

let bound: { engineUrl: string; module: ReturnType<typeof boundBasisTheoryJs> } | undefined;

function basisTheoryFor(engineUrl: string) {
  if (bound?.engineUrl !== engineUrl) bound = { engineUrl, module: boundBasisTheoryJs(engineUrl) };
  return bound.module;
}

/** node-bt's `bt`: a basis-theory-js client with the application's key, reaching this engine. */
export function btClient(engineUrl: string, apiKey: string) {
  return new (basisTheoryFor(engineUrl).BasisTheory)().init(apiKey);
}

export interface RequireScope {
  engineUrl: string;
  image: RuntimeImage;
  /** node22: the declared dependencies and how to load them. */
  dependencies?: { names: ReadonlySet<string>; load: Require };
}

/** Every module code may name, for the error that refuses another. */
const PROVIDED = [ERRORS_MODULE, BASIS_THEORY_JS, 'axios', ...VENDOR_PACKAGES, ...NODE_MODULES].join(', ');

/** The `require` code is given. */
export function codeRequire({ engineUrl, image, dependencies }: RequireScope): Require {
  return (name: string) => {
    if (typeof name !== 'string') throw new TypeError('require takes a module name');
    if (dependencies?.names.has(name)) return dependencies.load(name);
    const bare = name.startsWith('node:') ? name.slice('node:'.length) : name;
    if (NODE_MODULES.has(bare)) return process.getBuiltinModule(bare);
    if (name === ERRORS_MODULE) return reactorErrorsModule;
    if (name === BASIS_THEORY_JS) return basisTheoryFor(engineUrl);
    if (name === 'axios') return loadAxios();
    if (VENDOR_PACKAGES.has(name)) return loadVendorPackage(name);
    const declare = image === 'node22' ? ', or a dependency declared in runtime.dependencies' : '';
    throw new Error(`Cannot require "${name}": Tokenbench's code runtime provides ${PROVIDED}${declare}`);
  };
}
