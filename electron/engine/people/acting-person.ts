import { AsyncLocalStorage } from 'node:async_hooks';
import { WORKBENCH_CAUSE, type EventCause } from '../events/event-outbox';
import type { WorkbenchPerson } from './credential-store';

/**
 * The person a workbench call acts for, set once where the browser workbench authenticates the request and read where
 * the call records (History's entries, the events' actor). Carried by the call's async context rather than as an
 * argument: the person must reach stores a dozen calls below the method table, whose rows take (request, page), and a
 * call that never enters a person (the desktop's IPC, the owner's session) is the owner's without any caller saying so.
 */
const acting = new AsyncLocalStorage<WorkbenchPerson>();

/** Runs `call` as `person`; null: as the owner. */
export function asPerson<T>(person: WorkbenchPerson | null, call: () => T): T {
  return person ? acting.run(person, call) : call();
}

/** The person the current workbench call acts for; undefined for the owner. */
export const actingPerson = (): WorkbenchPerson | undefined => acting.getStore();

/** What the current workbench call's changes raise their events as: the person, else the owner (WORKBENCH_CAUSE). */
export function workbenchCause(): EventCause {
  const person = actingPerson();
  return person ? { actor: { id: person.id, name: person.name, type: 'user' }, traceId: null } : WORKBENCH_CAUSE;
}
