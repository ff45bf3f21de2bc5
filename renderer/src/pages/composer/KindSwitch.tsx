import { useComposerStore, type RequestKind } from '../../state/composer-store';

/** How the request goes: through the proxy to a destination, or straight to the vault's API. */
const KINDS: Record<RequestKind, string> = { proxy: 'Through the proxy', api: 'Vault API' };

export function KindSwitch() {
  const kind = useComposerStore((state) => state.draft.kind);
  const edit = useComposerStore((state) => state.edit);
  return (
    <fieldset className="segments">
      <legend className="visually-hidden">Request kind</legend>
      {(Object.keys(KINDS) as RequestKind[]).map((option) => (
        <label key={option}>
          <input type="radio" name="request-kind" checked={kind === option} onChange={() => edit({ kind: option, target: '' })} />
          {KINDS[option]}
        </label>
      ))}
    </fieldset>
  );
}
