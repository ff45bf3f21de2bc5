import { CopyButton } from '../../components/CopyButton';
import type { TokenView } from '../../../../shared/workbench/token-contract';
import { useComposerStore } from '../../state/composer-store';
import { expressionsFor } from './token-expressions';

/** Puts the expression in the Composer's body at its cursor, and goes there. */
function insertInComposer(expression: string): void {
  useComposerStore.getState().insertIntoBody(expression);
  // The shell's routing reads the address; a page does not reach into the shell.
  window.location.hash = '#/composer';
}

/** The expressions a request uses the token with, each to copy or to put in the Composer. */
export function TokenUse({ token }: { token: TokenView }) {
  return (
    <div className="token-use">
      <p className="muted">
        In a proxied request's body these become the token's data on the way to the destination; the Composer inserts them at its cursor.
      </p>
      <ul className="expressions">
        {expressionsFor(token).map(({ label, expression }) => (
          <li key={expression}>
            <div className="expression-head">
              <strong>{label}</strong>
              <CopyButton text={expression} label={`Copy ${label.toLowerCase()} expression`} />
              <button type="button" className="small" aria-label={`Use ${label.toLowerCase()} expression in Composer`} onClick={() => insertInComposer(expression)}>
                Use in Composer
              </button>
            </div>
            <code>{expression}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}
