import { useState, type FormEvent } from 'react';
import { messageOf } from '../api/engine-call';
import { signIn } from '../api/http-transport';
import { keepSession } from '../api/session';
import { Alert } from '../components/Alert';
import './theme.css';
import './shell.css';

/**
 * What a browser sees without a session the engine takes: a form for the workbench credential its owner made for
 * this person (or the owner's session secret). Signed in, the page starts again with that session.
 */
export function SignIn({ why }: { why: { text: string; refused: boolean } }) {
  const [credential, setCredential] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(why.refused ? why.text : null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    signIn(credential.trim()).then(
      (session) => {
        keepSession(session);
        window.location.reload();
      },
      (error: unknown) => {
        setProblem(messageOf(error));
        setBusy(false);
      },
    );
  };
  return (
    <main className="sign-in" aria-label="Sign in">
      <form className="panel sign-in-form" aria-labelledby="sign-in-title" onSubmit={submit}>
        <h1 id="sign-in-title">Sign in to Tokenbench</h1>
        {!why.refused && <p className="muted">{why.text}</p>}
        <label className="sign-in-field">
          Workbench credential
          <input
            type="password"
            autoComplete="current-password"
            autoFocus
            required
            spellCheck={false}
            placeholder="tbw_…"
            value={credential}
            onChange={(event) => setCredential(event.target.value)}
          />
        </label>
        <Alert message={problem} />
        <button type="submit" className="primary" disabled={busy || credential.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted sign-in-hint">
          No credential? Ask whoever runs this Tokenbench: they make one in Settings, or with <code>tokenbench credentials create YOUR-NAME</code>.
        </p>
      </form>
    </main>
  );
}
