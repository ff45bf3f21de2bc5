import { COMPOSER_METHODS } from '../../../../shared/workbench/collection-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { IS_MAC } from '../../components/keys';
import { useComposerStore, type ComposerMethod } from '../../state/composer-store';
import { cancelComposed, sendComposed } from './composer-actions';
import { ProxyPicker } from './ProxyPicker';
import { TARGET_INPUT_ID } from './RequestFlags';

/** The method, where the request goes, and Send (or Cancel while it runs). */
export function RequestLine() {
  const api = useWorkbenchApi();
  const draft = useComposerStore((state) => state.draft);
  const sending = useComposerStore((state) => state.sending);
  const edit = useComposerStore((state) => state.edit);
  const proxied = draft.kind === 'proxy';
  const preconfigured = proxied && draft.proxy !== undefined;
  const [label, placeholder] = preconfigured
    ? ['Path after /proxy', 'Path after /proxy: /v1/charges']
    : proxied
      ? ['Destination URL', 'Destination URL: https://…']
      : ['Path', 'Path: /tokens'];
  return (
    <div className="request-line">
      <select aria-label="Method" value={draft.method} onChange={(event) => edit({ method: event.target.value as ComposerMethod })}>
        {COMPOSER_METHODS.map((method) => (
          <option key={method}>{method}</option>
        ))}
      </select>
      {proxied && <ProxyPicker />}
      <input
        type="text"
        id={TARGET_INPUT_ID}
        aria-label={label}
        placeholder={placeholder}
        spellCheck={false}
        value={draft.target}
        onChange={(event) => edit({ target: event.target.value })}
      />
      {sending ? (
        <button type="button" className="cancel" onClick={() => cancelComposed(api)} aria-keyshortcuts="Escape">
          Cancel <kbd>Esc</kbd>
        </button>
      ) : (
        <button type="button" className="primary" onClick={() => void sendComposed(api)} aria-keyshortcuts="Control+Enter Meta+Enter">
          Send <kbd>{IS_MAC ? '⌘↵' : 'Ctrl+↵'}</kbd>
        </button>
      )}
    </div>
  );
}
