import { useEffect, useMemo, useRef, useState, type ReactNode, type Ref } from 'react';
import type { FlagPlace, RequestFlag } from '../../../../shared/workbench/composer-contract';
import type { EditorDiagnostics } from '../../components/CodeEditor';
import { useComposerStore } from '../../state/composer-store';
import { useRequestCheckStore, type CheckedRequest } from '../../state/request-check-store';
import { Alert } from '../../components/Alert';
import { lineAt, plural } from '../../components/format';

/** The id of the destination URL field, which a flag on the URL's path moves to. */
export const TARGET_INPUT_ID = 'composer-target';

/** So many flags are listed at first; the rest on request, and all of them in the editor (F8, Ctrl+Shift+M). */
const FIRST_SHOWN = 8;

const SEVERITY: Record<RequestFlag['severity'], string> = { error: 'Error', warning: 'Warning', info: 'Note' };

const sentenceOf = (flag: RequestFlag) => (flag.advice ? `${flag.message}. What to do: ${flag.advice}` : `${flag.message}.`);

/**
 * The flags on the body as the editor shows them, for the body they were made for; with `offset`, the editor holds the
 * part of the request's body from there on (a react's args).
 */
export function bodyDiagnostics(checked: CheckedRequest | null, offset = 0): EditorDiagnostics | null {
  if (!checked || checked.body === null) return null;
  const { body } = checked;
  const inText = (at: number) => Math.max(0, Math.min(at - offset, body.length));
  const items = checked.result.flags.flatMap((flag) =>
    flag.at.part === 'body' ? [{ from: inText(flag.at.from), to: inText(flag.at.to), severity: flag.severity, source: 'Tokenbench', message: sentenceOf(flag) }] : [],
  );
  return { text: body, items };
}

/** The editor's flags, from the latest check. */
export function useBodyDiagnostics(): EditorDiagnostics | null {
  const checked = useRequestCheckStore((state) => state.checked);
  return useMemo(() => bodyDiagnostics(checked), [checked]);
}

/** Where a flag points, in the Composer's words. */
function placeLabel(at: FlagPlace, body: string | null): string {
  switch (at.part) {
    case 'body':
      return `Body, line ${lineAt(body ?? '', at.from)}`;
    case 'header':
      return `Header ${at.name}`;
    case 'query':
      return `Query parameter ${at.name}`;
    case 'path':
      return 'Destination URL path';
    case 'request':
      return 'Request';
  }
}

function summaryOf(flags: readonly RequestFlag[]): string {
  const count = (severity: RequestFlag['severity']) => flags.filter((flag) => flag.severity === severity).length;
  const [errors, warnings, notes] = [count('error'), count('warning'), count('info')];
  const rest = [warnings && plural(warnings, 'warning', 'warnings'), notes && plural(notes, 'note', 'notes')].filter(Boolean).join(', ');
  const unresolved = flags.filter((flag) => flag.kind === 'unresolved_reference').length;
  if (unresolved > 0 && unresolved === errors) return `This request cannot be sent yet: ${plural(unresolved, 'value it refers to is', 'values it refers to are')} not set.`;
  if (errors > 0) return `The proxy would refuse this request: ${plural(errors, 'error', 'errors')}${rest ? `, ${rest}` : ''}.`;
  // A warning is the request doing what it does not seem to: accepted, and wrong all the same.
  if (warnings > 0) return `The proxy would accept this request, but check ${plural(warnings, 'warning', 'warnings')} first${notes ? `; ${plural(notes, 'note', 'notes')}` : ''}.`;
  if (rest) return `The proxy would accept this request; ${rest}.`;
  return 'No flags: the proxy would accept this request.';
}

/** A flag as the list shows it: its severity, where it is, what is wrong and what to do. */
function FlagItem({ severity, place, message, advice, itemRef }: Pick<RequestFlag, 'severity' | 'message' | 'advice'> & { place: ReactNode; itemRef?: Ref<HTMLLIElement> }) {
  return (
    <li className={`flag flag-${severity}`} ref={itemRef}>
      <span className="flag-severity">{SEVERITY[severity]}</span>
      {place}
      <span className="flag-message">{message}</span>
      {advice && <span className="flag-advice">What to do: {advice}</span>}
    </li>
  );
}

/** One flag: where it points (a button that goes there), what is wrong and what to do. */
function Flag({ flag, checked, itemRef }: { flag: RequestFlag; checked: CheckedRequest; itemRef?: Ref<HTMLLIElement> }) {
  const body = useComposerStore((state) => state.draft.body);
  const point = useComposerStore((state) => state.point);
  const showTab = useComposerStore((state) => state.showRequestTab);
  const { at } = flag;
  // A stretch of another body would select the wrong text; the next check follows the edit at once.
  const current = at.part !== 'body' || checked.body === body;
  const go = () => {
    if (at.part === 'body') point(at.from, at.to);
    else if (at.part === 'header') showTab('headers');
    else if (at.part === 'query') showTab('query');
    else document.getElementById(TARGET_INPUT_ID)?.focus();
  };
  const place = (
    <button type="button" className="flag-place" disabled={!current} onClick={go}>
      {placeLabel(at, checked.body)}
    </button>
  );
  return <FlagItem {...flag} place={place} itemRef={itemRef} />;
}

/**
 * The first flag to act on (the engine lists errors, then warnings, then notes), kept in view as it changes: a new
 * one scrolls the page only as far as it takes to show it whole.
 */
function useFirstInView(flags: readonly RequestFlag[]) {
  const first = useRef<HTMLLIElement>(null);
  const top = flags[0];
  const key = top && top.severity !== 'info' ? JSON.stringify(top) : null;
  useEffect(() => {
    if (key) first.current?.scrollIntoView({ block: 'nearest' });
  }, [key]);
  return first;
}

/** The engine's answer to a body over its body limit: the proxy would refuse the request whatever else it holds. */
function OverLimit({ message }: { message: string }) {
  return (
    <section className="request-flags" aria-label="Checks before sending">
      <p className="flags-summary">The proxy would refuse this request: its body is over the body limit.</p>
      <ul className="flag-list" aria-label="Flags">
        <FlagItem
          severity="error"
          place={<span className="flag-place">Body</span>}
          message={`413 from the proxy: ${message}`}
          advice="Shorten the body, or raise the body limit in Settings (a --max-body given at start wins)."
        />
      </ul>
    </section>
  );
}

/** The engine's flags on the request before it is sent: what the proxy would refuse, and where the hosted service differs. */
export function RequestFlags() {
  const checked = useRequestCheckStore((state) => state.checked);
  const problem = useRequestCheckStore((state) => state.problem);
  const throughProxy = useComposerStore((state) => state.draft.kind === 'proxy');
  const [all, setAll] = useState(false);
  const first = useFirstInView(checked?.result.flags ?? []);
  // A vault API call is not checked by the proxy; only what it refers to and cannot be put in is flagged.
  if (!throughProxy && !checked?.result.flags.some((flag) => flag.kind === 'unresolved_reference')) return null;
  if (problem?.overLimit) return <OverLimit message={problem.message} />;
  if (!checked) return <Alert message={problem && `Could not check the request: ${problem.message}`} />;
  const { flags, vault_checked } = checked.result;
  const shown = all ? flags : flags.slice(0, FIRST_SHOWN);
  return (
    <section className="request-flags" aria-label="Checks before sending">
      {/* Not a live region: it changes with every keystroke. The editor's flags are read with Ctrl+Shift+M. */}
      <p className="flags-summary">{summaryOf(flags)}</p>
      {flags.length > 0 && (
        <ul className="flag-list" aria-label="Flags">
          {shown.map((flag, i) => (
            <Flag key={i} flag={flag} checked={checked} itemRef={i === 0 ? first : undefined} />
          ))}
        </ul>
      )}
      {flags.length > shown.length && (
        <button type="button" className="small" onClick={() => setAll(true)}>
          Show all {flags.length} flags
        </button>
      )}
      {!vault_checked && (
        <p className="muted flags-note">
          Sending to a remote target: only the request itself is checked. Its tokens and access rules are the remote&apos;s, and the compatibility
          warnings describe this engine, so neither is flagged here.
        </p>
      )}
    </section>
  );
}
