import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import type { ClientKeyInfo } from '../../../../shared/workbench/application-contract';
import { CLIENT_KEY_ALGORITHM } from '../../../../shared/workbench/client-access-contract';
import { CARD_VARIABLE, encryptSnippet } from '../../../../shared/snippets/encrypt-snippet';
import { KEY_VARIABLE } from '../../../../shared/snippets/request-snippet';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ColumnHeads } from '../../components/ColumnHeads';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { useApplicationsStore } from '../../state/applications-store';
import { useClientKeysStore } from '../../state/client-access-stores';
import { useEngineStore } from '../../state/engine-store';
import { ActionOutcome } from './SettingFields';

const DAY_MS = 24 * 3600 * 1000;
/** How long a new key lives: the vendor's most, a year, unless the user wants a key that ends sooner. */
const LIFETIMES = [
  { label: '1 year (the most)', ms: 365 * DAY_MS },
  { label: '30 days', ms: 30 * DAY_MS },
  { label: '1 day', ms: DAY_MS },
  { label: '1 hour', ms: 3600 * 1000 },
] as const;

/** A date in a narrow column; the time to the minute when hovered. */
function When({ iso }: { iso: string }) {
  const date = new Date(iso);
  return (
    <td className="time" title={date.toLocaleString()}>
      {date.toLocaleDateString()}
    </td>
  );
}

/** A key just made: its public half, shown this once with Copy, and what to do with it. */
interface MadeKey {
  key_id: string;
  public_key_pem: string;
}

function NewKeyShown({ made, onDone }: { made: MadeKey; onDone: () => void }) {
  // The focus goes to what was just made, so a keyboard user is where the key is to copy.
  const pem = useRef<HTMLPreElement>(null);
  useEffect(() => pem.current?.focus(), []);
  return (
    <div className="secret client-key-new" role="group" aria-label={`Public key of ${made.key_id}`}>
      <span className="secret-label">
        Public key of <code>{made.key_id}</code>
      </span>
      <pre ref={pem} className="code-block client-key-pem" aria-label="Public key PEM" tabIndex={0}>
        {made.public_key_pem}
      </pre>
      <div className="secret-line">
        <CopyButton text={made.public_key_pem} label="Copy the public key" />
        <CopyButton text={made.key_id} label="Copy the key id" caption="Copy id" />
        <button type="button" className="small" onClick={onDone}>
          Done
        </button>
      </div>
      <p className="muted secret-note">
        Copy it now: Tokenbench keeps only the private half and cannot show this again. Give the public key and its id to your front end (the
        Elements take them, or encrypt with <code>jose</code> as below); your back end sends what it encrypts to <code>POST /tokens</code> as{' '}
        <code>encrypted</code>.
      </p>
    </div>
  );
}

function KeyRow({ info, onDeleted }: { info: ClientKeyInfo; onDeleted: (done: string) => void }) {
  const api = useWorkbenchApi();
  const [deleting, setDeleting] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const maker = useApplicationsStore((state) => state.value?.find((application) => application.id === info.created_by)?.name ?? info.created_by);
  const remove = () =>
    run(async () => {
      await api.deleteClientKey({ key_id: info.key_id });
      setDeleting(false);
      onDeleted(`Deleted client encryption key ${info.key_id}.`);
      await useClientKeysStore.refresh(api);
    });
  return (
    <>
      <tr>
        <td className="client-key-id">
          <code>{info.key_id}</code>
        </td>
        <td>{CLIENT_KEY_ALGORITHM}</td>
        <When iso={info.created_at} />
        <When iso={info.expires_at} />
        <td>{maker ?? 'Settings'}</td>
        <td className="number secret-actions">
          <button type="button" className="small danger" aria-label={`Delete key ${info.key_id}`} onClick={() => setDeleting(true)}>
            Delete
          </button>
        </td>
      </tr>
      {deleting && (
        <tr className="secret-change">
          <td colSpan={6}>
            <ConfirmDialog
              title={`Delete key ${info.key_id}?`}
              confirm="Delete key"
              busy={busy}
              problem={problem}
              onConfirm={() => void remove()}
              onClose={() => setDeleting(false)}
            >
              <p>
                Its private half goes for good: anything encrypted with its public half can no longer be sent as <code>encrypted</code>, and a front end
                holding it needs a new key.
              </p>
            </ConfirmDialog>
          </td>
        </tr>
      )}
    </>
  );
}

/** Makes a key: how long it lives, then its public half, shown once. */
function MakeKey({ onMade, button }: { onMade: (made: MadeKey) => void; button: RefObject<HTMLButtonElement | null> }) {
  const api = useWorkbenchApi();
  const [lifetime, setLifetime] = useState(0);
  const { busy, problem, run } = useEngineCall();
  const make = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const expires_at = new Date(Date.now() + LIFETIMES[lifetime].ms - 60_000).toISOString();
      const made = await api.createClientKey({ expires_at });
      onMade({ key_id: made.key.key_id, public_key_pem: made.public_key_pem });
      await useClientKeysStore.refresh(api);
    });
  };
  return (
    <form className="settings-inline" aria-label="Make a client encryption key" onSubmit={make}>
      <label className="settings-field">
        Lives for
        <select value={lifetime} onChange={(event) => setLifetime(Number(event.target.value))}>
          {LIFETIMES.map((option, index) => (
            <option key={option.label} value={index}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <button ref={button} type="submit" className="small" disabled={busy}>
        Make a key
      </button>
      <Alert message={problem} />
    </form>
  );
}

/** The how-to: encrypt a card with a key's public half and send it, filled in with the key just made when there is one. */
function EncryptHowTo({ made }: { made: MadeKey | null }) {
  const status = useEngineStore((state) => state.status);
  if (!status) return null;
  const code = encryptSnippet({ url: status.url, headerPrefix: status.headerPrefix, key: made });
  return (
    <details className="client-key-howto">
      <summary>How to encrypt a token request (Node.js, jose)</summary>
      <pre className="code-block" aria-label="Encrypt snippet" tabIndex={0}>
        {code}
      </pre>
      <p className="muted settings-hint">
        {made ? 'Filled in with the key just made. ' : 'Put in a key’s id and public key. '}
        Set <code>{CARD_VARIABLE}</code> to a test card number and <code>{KEY_VARIABLE}</code> to the key of a private application with{' '}
        <code>token:create</code>. History keeps such a request with{' '}
        <code>encrypted</code> redacted, and names the key that decrypted it. A proxy call takes the same request, base64, in{' '}
        <code>{status.headerPrefix}-ENCRYPTED</code> (docs/api.md, Client encryption keys).
      </p>
      <CopyButton text={code} label="Copy the encrypt snippet" />
    </details>
  );
}

/** Client encryption keys (docs/api.md): listed without their halves, made (the public half shown once), deleted after a question. */
export function ClientKeysSection() {
  const keys = useClientKeysStore((state) => state.value);
  const problem = useClientKeysStore((state) => state.problem);
  const [made, setMade] = useState<MadeKey | null>(null);
  const makeButton = useRef<HTMLButtonElement>(null);
  const [done, setDone] = useState<string | null>(null);
  useClientKeysStore.useRefreshed();
  return (
    <section className="panel settings-section" aria-labelledby="settings-client-keys">
      <h2 id="settings-client-keys">Client encryption keys</h2>
      <p className="muted settings-hint">
        A front end encrypts card data with a key’s public half (as the vendor’s Elements do: a JWE, ECDH-ES with A256GCM), so your back end only ever
        holds the JWE and sends it in place of <code>data</code>. The engine keeps each private half sealed; clients manage keys with <code>/keys</code>{' '}
        and a management key.
      </p>
      <Alert message={problem} />
      {keys &&
        (keys.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <table className="data-table" aria-label="Client encryption keys">
            <ColumnHeads columns={['Key id', 'Algorithm', 'Created', 'Expires', 'Made by']} buttons="Actions" />
            <tbody>
              {keys.map((info) => (
                <KeyRow key={info.key_id} info={info} onDeleted={setDone} />
              ))}
            </tbody>
          </table>
        ))}
      <ActionOutcome done={done} problem={null} />
      {made && (
        <NewKeyShown
          made={made}
          onDone={() => {
            setMade(null);
            makeButton.current?.focus();
          }}
        />
      )}
      <MakeKey
        button={makeButton}
        onMade={(key) => {
          setDone(null);
          setMade(key);
        }}
      />
      <EncryptHowTo made={made} />
    </section>
  );
}
