import { useEffect, useRef } from 'react';
import { CopyButton } from '../components/CopyButton';
import { SecretValue } from '../components/SecretValue';
import { useEngineStore, useHeaderPrefix } from '../state/engine-store';
import { useWelcomeStore } from '../state/welcome-store';

/**
 * A new vault's first minutes, with no terminal needed: where clients call it and its two first keys, shown this once
 * with copy buttons. A modal dialog (the page behind is inert); Escape does not close it, so a stray key cannot lose
 * the keys: "I have saved them" does.
 */
export function WelcomeDialog() {
  const keys = useWelcomeStore((state) => state.keys);
  const done = useWelcomeStore((state) => state.done);
  const status = useEngineStore((state) => state.status);
  const prefix = useHeaderPrefix();
  const dialog = useRef<HTMLDialogElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!keys || dialog.current?.open) return;
    dialog.current?.showModal();
    // The way out, focused: the keys are read above it, copied with Shift+Tab, and confirmed with Enter.
    confirm.current?.focus();
  }, [keys]);
  if (!keys) return null;
  return (
    <dialog ref={dialog} className="modal welcome" aria-labelledby="welcome-title" onCancel={(event) => event.preventDefault()}>
      <h2 id="welcome-title">Welcome to Tokenbench</h2>
      <p>This vault is new. Clients call it here, with one of the keys below in the {prefix}-API-KEY header:</p>
      {status && (
        <dl className="welcome-endpoint">
          <dt>API</dt>
          <dd>
            <code>{status.url}</code> <CopyButton text={status.url} label="Copy the API URL" />
          </dd>
          {status.echoUrl && (
            <>
              <dt>Echo destination</dt>
              <dd>
                <code>{status.echoUrl}</code> <CopyButton text={status.echoUrl} label="Copy the echo destination URL" />
              </dd>
            </>
          )}
        </dl>
      )}
      <SecretValue label={`Management key of “${keys.management.application_name}”`} value={keys.management.key} note="Manages applications and keys (application:*)." />
      <SecretValue label={`Private key of “${keys.private.application_name}”`} value={keys.private.key} note="Creates, reads and uses tokens, and calls the proxy (token:*)." />
      <p className="muted">
        They are shown this once: Tokenbench keeps only a keyed hash of each. Settings makes new keys for any application later.
      </p>
      <div className="modal-actions">
        <button type="button" className="primary" onClick={done} ref={confirm}>
          I have saved the keys
        </button>
      </div>
    </dialog>
  );
}
