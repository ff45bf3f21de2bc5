import { randomUUID } from 'node:crypto';
import type { PageId } from '../../../shared/workbench/pages';
import type { RequestLog } from '../history/request-log';
import { WORKBENCH_CAUSE } from '../events/event-outbox';
import { workbenchActivities } from '../logs/entity-activity';
import { actingPerson } from '../people/acting-person';
import { ApiProblem } from '../server/problem';

/** How one of the workbench's own actions reads in history, decided once its outcome is known. */
export interface ActionRecord {
  /** A verb of the workbench's own: REVEAL, CREATE, UPDATE, DELETE, SAVE, MOVE, SEND, IMPORT, WIPE, CLEAR. */
  method: string;
  path: string;
  details: Record<string, unknown>;
  /** The application the workbench acted as (a reveal under its access rules, or of its key); null otherwise. */
  application_id?: string | null;
  transaction_id?: string | null;
}

/**
 * Runs one action the workbench takes in the vault itself rather than through a request (a reveal, a change in
 * Settings) and records it in history as the user's own (kind `workbench`, with the page it was taken on), whether
 * it succeeded or not. `describe` is given the action's result, or undefined when it failed; null: it did nothing
 * to record after all (a welcome already taken).
 */
export type RecordAction = <T>(page: PageId | undefined, run: () => T | Promise<T>, describe: (result: T | undefined) => ActionRecord | null) => Promise<T>;

/** What History says the action did: a change's or a reveal's summary. */
function summaryOf({ details }: ActionRecord): string | undefined {
  const said = (details.change ?? details.reveal) as { summary?: unknown } | undefined;
  return typeof said?.summary === 'string' ? said.summary : undefined;
}

const statusOf = (error: unknown) => (error instanceof ApiProblem ? error.status : 500);

export function actionRecorder(history: RequestLog): RecordAction {
  return async (page, run, describe) => {
    const started = performance.now();
    const record = (status: number, result?: Awaited<ReturnType<typeof run>>) => {
      const action = describe(result);
      if (!action) return;
      const { application_id = null, transaction_id = null, ...rest } = action;
      const person = actingPerson();
      history.record({
        kind: 'workbench',
        ...rest,
        status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        application_id,
        workbench_page: page ?? null,
        workbench_person: person,
        // Its own trace id, as every request the service answers has one, so the audit trail can name each action.
        trace_id: randomUUID(),
        transaction_id,
        request_headers: [],
        // GET /logs names the person, as the hosted service's logs name a portal user.
        activities: status < 400 ? workbenchActivities({ ...action, summary: summaryOf(action) }, person?.id ?? WORKBENCH_CAUSE.actor!.id) : undefined,
      });
    };
    try {
      const result = await run();
      record(200, result);
      return result;
    } catch (error) {
      record(statusOf(error));
      throw error;
    }
  };
}
