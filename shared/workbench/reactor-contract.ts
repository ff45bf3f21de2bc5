import { z } from 'zod';
import { exchangeSchema } from './composer-contract';
import { historyEntrySchema } from './history-contract';
import { runtimeSchema } from './proxy-contract';

/**
 * Reactors as the Reactors page edits them (docs/api.md, Reactors). The shape is checked here; what the fields mean
 * (an application that may hold the code's key, runtime options of the right image) the engine checks as POST and PUT
 * /reactors do, naming each field it refuses (`runtime.timeout`).
 */

const reactorDefinitionFields = {
  name: z.string().max(1000),
  code: z.string().max(100_000),
  configuration: z.record(z.string().max(200), z.string().max(16 * 1024)),
  application_id: z.string().min(1).max(200).nullable(),
  /** null: node-bt with its defaults. */
  runtime: runtimeSchema.nullable(),
};

export const newReactorSchema = z.strictObject(reactorDefinitionFields);
export const reactorChangeSchema = z.strictObject({ id: z.string().min(1).max(200), ...reactorDefinitionFields });
export type ReactorDefinitionInput = z.input<typeof newReactorSchema>;

/** A reactor as the page shows it: its definition, state and dates, and a change that waits (why it is not live). */
export const reactorViewSchema = z.object({
  id: z.string(),
  ...reactorDefinitionFields,
  state: z.string(),
  /** Why the last change asked for is not live (node22 dependencies not found); null when it is. */
  waiting: z.string().nullable(),
  /** The file of the proxies folder it is loaded from (then changed only there); null: made through the API or the page. */
  file: z.string().nullable(),
  created_at: z.string(),
  modified_at: z.string().nullable(),
});
export type ReactorView = z.output<typeof reactorViewSchema>;

/**
 * A react from the Reactors page: `args` is the JSON text the page's editor holds (expressions and all), sent as
 * `{"args": …}` to POST /reactors/{id}/react as the application, with its workbench key.
 */
export const reactorTrySchema = z.strictObject({
  /** Chosen by the page, so it can cancel the request while it runs. */
  request_id: z.string().min(1).max(100),
  id: z.string().min(1).max(200),
  application_id: z.string().min(1).max(200),
  args: z.string().max(1024 * 1024),
  /** To POST /reactors/{id}/react-async: answered 202 with the request id its result is asked for by. */
  async: z.boolean().default(false),
});

/** The result of a react-async Try, asked for through GET /reactors/{id}/results/{result_id} as the application. */
export const reactorResultQuerySchema = z.strictObject({
  request_id: z.string().min(1).max(100),
  id: z.string().min(1).max(200),
  application_id: z.string().min(1).max(200),
  /** The react-async's `asyncReactorRequestId`. */
  result_id: z.string().min(1).max(200),
  /** The react-async's trace id: its History entry, recorded as the run ends, is found by it. */
  trace_id: z.string().min(1).max(200),
});

export const reactorResultSchema = z.object({
  /** The run has not ended: the answer is `{"status": "pending"}`. */
  pending: z.boolean(),
  /** The GET of the result, as sendRequest answers. */
  exchange: exchangeSchema,
  /** Once the run has ended: the react-async's History entry, with its trace (null when none was found in time). */
  reacted: historyEntrySchema.nullable(),
});

/** Where a react's body opens its args: the args text follows, so a flag on the body points this far into the args. */
const ARGS_OPEN = '{"args":';
export const ARGS_OFFSET = ARGS_OPEN.length;

/** The react a Try sends (react-async with `async`): the args text, as the user wrote it, as the body's `args`. */
export function reactRequest(id: string, args: string, async = false) {
  return {
    method: 'POST' as const,
    path: `/reactors/${encodeURIComponent(id)}/${async ? 'react-async' : 'react'}`,
    headers: [['Content-Type', 'application/json']] as [string, string][],
    body: `${ARGS_OPEN}${args}}`,
  };
}
