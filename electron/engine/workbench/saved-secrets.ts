import type { CollectionsView, ImportedRequests, SavedRequest } from '../../../shared/workbench/collection-contract';
import type { SentReply } from '../../../shared/workbench/methods';
import type { MovedAside, SecretInfo } from '../../../shared/workbench/secret-contract';
import type { CollectionStore } from '../collections/collection-store';
import { moveCredentialsAside, secretUses } from '../secrets/saved-credentials';
import type { SecretEntry, SecretStore } from '../secrets/secret-store';

const counted = (n: number) => `${n} ${n === 1 ? 'credential' : 'credentials'}`;

/**
 * Saved requests and the secrets they refer to, as the workbench sees them: a request's credentials move into the
 * secret store before its file is written (the two together or neither), an import's as it is read; each reply says
 * which moved, and history records it from there (workbench-records.ts). Listings name the files that still hold a
 * credential in plain text.
 */
export function savedSecrets(store: SecretStore, collections: CollectionStore, shown: (view: CollectionsView) => CollectionsView) {
  const view = async (): Promise<CollectionsView> => shown(await collections.list());
  const info = (entry: SecretEntry, uses: ReturnType<typeof secretUses>): SecretInfo => ({ ...entry, used_by: uses.get(entry.name) ?? [] });

  return {
    view,

    async save(place: { collection: string; name: string }, request: SavedRequest, options: { overwrite: boolean; sendAs: string | null }): Promise<SentReply<'saveRequest'>> {
      // A file that cannot be written leaves no secret behind.
      const { moved } = await store.atomically(
        (staged) => moveCredentialsAside(request, `${place.collection}-${place.name}`, staged, staged.namesByValue()),
        (aside) => {
          collections.save(place.collection, place.name, aside.request, options.overwrite, options.sendAs);
          return aside;
        },
      );
      return { ...(await view()), moved_aside: moved };
    },

    /** An import's requests with their credentials moved into Secrets, each named after the host it went to. */
    async imported(result: ImportedRequests): Promise<ImportedRequests> {
      const requests = await store.atomically(
        (staged) => {
          const known = staged.namesByValue();
          return result.requests.map((imported) => {
            const aside = moveCredentialsAside(imported.request, hostOf(imported.request), staged, known);
            return { ...imported, request: aside.request, moved_aside: aside.moved };
          });
        },
        (moved) => moved,
      );
      return {
        ...result,
        requests: requests.map((imported) =>
          imported.moved_aside.length === 0 ? imported : { ...imported, notes: [...imported.notes, movedNote(imported.moved_aside)] },
        ),
      };
    },

    async list(): Promise<SecretInfo[]> {
      const uses = secretUses(await collections.list());
      return store.list().map((entry) => info(entry, uses));
    },

    async set(name: string, value: string): Promise<SecretInfo> {
      const entry = await store.set(name, value);
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
