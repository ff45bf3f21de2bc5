import type { CodeCall, CodeKind, CodeValue } from './code-call';

/** What an invocation provides to its code besides the call's arguments. */
export interface InvocationScope {
  configuration: Record<string, string>;
  /** `{ apiKey, environment }` when the call has an application key; `environment` is this engine's URL. */
  applicationOptions?: { apiKey: string; environment: string };
  /** node-bt: the basis-theory-js client of that key, or null without one. */
  bt: unknown;
  /** The invocation's captured console, and node22's `logger`. */
  logger: Record<string, (...args: unknown[]) => void>;
}

/** One runtime's contract (vendor-surfaces.md §2.4–2.5, §3.4): the argument its code gets, and what it may return. */
export interface Contract {
  argument(call: CodeCall, scope: InvocationScope): unknown;
  /** The return as the engine uses it; throws InvalidReturn when it breaks the contract. */
  value(kind: CodeKind, returned: unknown): CodeValue;
}
