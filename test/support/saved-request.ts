import type { SavedRequest } from '../../shared/workbench/collection-contract';

/** A request as the Composer saves one: through the proxy, with a header and an expression in its body. */
export const SAVED_REQUEST: SavedRequest = {
  kind: 'proxy',
  method: 'POST',
  target: 'https://api.example.com/v1/charges',
  headers: [{ name: 'X-Order', value: 'o-1', enabled: true }],
  service: { transaction: '', trace: '', keepAlive: '', connection: '' },
  bodyMode: 'json',
  body: '{"pan": "{{ card | json: \'$.number\' }}"}',
};
