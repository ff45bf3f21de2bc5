import { describe, expect, it } from 'vitest';
import { workbenchActivities } from '../../electron/engine/logs/entity-activity';

/** How the workbench's own actions become GET /logs lines (docs/api.md, Logs): the entity from the action's path, by the person. */
describe('workbenchActivities', () => {
  it('logs a key made for an application as an update of that application, by the person', () => {
    expect(workbenchActivities({ method: 'CREATE', path: '/applications/app-1/keys/key-1', summary: 'Made the workbench key …abcd of Backend' }, 'alice-id')).toEqual([
      { actor_id: 'alice-id', actor_type: 'user', entity_type: 'application', entity_id: 'app-1', operation: 'update', message: 'Made the workbench key …abcd of Backend' },
    ]);
  });

  it('logs a reveal as a read of what was revealed', () => {
    expect(workbenchActivities({ method: 'REVEAL', path: '/tokens/tok%201', summary: 'Revealed the data of token tok 1' }, 'workbench')).toMatchObject([
      { entity_type: 'token', entity_id: 'tok 1', operation: 'read' },
    ]);
  });

  it('logs nothing for what acts on no entity (a saved request, a wipe), and keeps a message within 250 characters', () => {
    expect(workbenchActivities({ method: 'SAVE', path: '/collections/orders/charge', summary: 'Saved' }, 'workbench')).toEqual([]);
    expect(workbenchActivities({ method: 'WIPE', path: '/vault', summary: 'Wiped' }, 'workbench')).toEqual([]);
    const [line] = workbenchActivities({ method: 'DELETE', path: '/webhooks/w-1', summary: 'x'.repeat(400) }, 'workbench');
    expect(line.message).toHaveLength(250);
  });
});
