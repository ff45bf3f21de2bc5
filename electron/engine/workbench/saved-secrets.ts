import type { CollectionsView, ImportedRequests, SavedRequest } from '../../../shared/workbench/contract';
import type { SentReply } from '../../../shared/workbench/methods';
import type { PageId } from '../../../shared/workbench/pages';
import type { MovedAside, SecretInfo } from '../../../shared/workbench/secret-contract';
import type { CollectionStore } from '../collections/collection-store';
import { moveCredentialsAside, plainTextCredentials, secretUses } from '../secrets/saved-credentials';
import type { SecretEntry, SecretStore } from '../secrets/secret-store';
import type { RecordAction } from './workbench-actions';

const counted = (n: number) => `${n} ${n === 1 ? 'credential' : 'credentials'}`;
const namesOf = (moved: readonly MovedAside[]) => [...new Set(moved.map(({ secret }) => secret))].join(', ');

/**
 * Saved requests and the secrets they refer to, as the workbench sees them: a request's credentials move into the
 * secret store before its file is written (the two together or neither), an import's as it is read, and each move is
 * recorded in history by the secrets' names. Listings name the files that still hold a credential in plain text.
 */
export function savedSecrets(store: SecretStore, collections: CollectionStore, record: RecordAction, shown: (view: CollectionsView) => CollectionsView) {
  const view = async (): Promise<CollectionsView> => shown(await collections.list());
  const info = (entry: SecretEntry, uses: ReturnType<typeof secretUses>): SecretInfo => ({ ...entry, used_by: uses.get(entry.name) ?? [] });

  /** Runs a move into the store, recorded in history when it moves anything (`summary` given the moved, or undefined when it failed). */
  function recorded<T>(page: PageId | undefined, moves: boolean, run: () => T & { moved: MovedAside[] }, summary: (moved: MovedAside[] | undefined) => string): Promise<T> {
    if (!moves) return Promise.resolve(run());
    return record(page, run, (result) => ({
      method: 'CREATE',
      path: '/secrets',
      details: { change: { action: 'moveCredentials', summary: summary(result?.moved) } },
    }));
  }

  return {
    view,

    async save(place: { collection: string; name: string }, request: SavedRequest, options: { overwrite: boolean; sendAs: string | null }, page?: PageId): Promise<SentReply<'saveRequest'>> {
      const where = `“${place.collection}/${place.name}”`;
      const { moved } = await recorded(
        page,
        plainTextCredentials(request).length > 0,
        () =>
          store.atomically(() => {
            const aside = moveCredentialsAside(request, `${place.collection}-${place.name}`, store, store.namesByValue());
            // In the same transaction: a file that cannot be written leaves no secret behind.
            collections.save(place.collection, place.name, aside.request, options.overwrite, options.sendAs);
            return aside;
          }),
        (done) => (done ? `Moved ${counted(done.length)} of ${where} into Secrets: ${namesOf(done)}` : `Could not save ${where}: no credential was moved into Secrets`),
      );
      return { ...(await view()), moved_aside: moved };
    },

    /** An import's requests with their credentials moved into Secrets, each named after the host it went to. */
    async imported(result: ImportedRequests, page?: PageId): Promise<ImportedRequests> {
      const moves = result.requests.some(({ request }) => plainTextCredentials(request).length > 0);
      const { requests } = await recorded(
        page,
        moves,
        () => {
          const requests = store.atomically(() => {
            const known = store.namesByValue();
            return result.requests.map((imported) => {
              const aside = moveCredentialsAside(imported.request, hostOf(imported.request), store, known);
              return { ...imported, request: aside.request, moved_aside: aside.moved };
            });
          });
          return { requests, moved: requests.flatMap((imported) => imported.moved_aside) };
        },
        (done) => (done ? `Moved ${counted(done.length)} of imported requests into Secrets: ${namesOf(done)}` : 'Could not move the credentials of imported requests into Secrets'),
      );
      return {
        ...result,
        requests: requests.map((imported) =>
          imported.moved_aside.length === 0
            ? imported
            : { ...imported, notes: [...imported.notes, movedNote(imported.moved_aside)] },
        ),
      };
    },

    async list(): Promise<SecretInfo[]> {
      const uses = secretUses(await collections.list());
      return store.list().map((entry) => info(entry, uses));
    },

    async set(name: string, value: string): Promise<SecretInfo> {
      const entry = store.set(name, value);
      return info(entry, secretUses(await collections.list()));
    },
  };
}

/** Where an imported request goes, to name its secrets by: the destination's host, or the vault's API. */
function hostOf(request: SavedRequest): string {
  if (request.kind === 'api') return 'vault';
  try {
    return new URL(request.target).hostname;
  } catch {
    return 'imported';
  }
}

const movedNote = (moved: readonly MovedAside[]) =>
  `Moved ${counted(moved.length)} into Secrets, where the request refers to ${moved.length === 1 ? 'it' : 'them'} by name: ${moved.map(({ header, secret }) => `${header} as ${secret}`).join(', ')}.`;
