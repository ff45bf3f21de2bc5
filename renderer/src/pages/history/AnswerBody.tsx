import { useEffect, useMemo } from 'react';
import type { ProxyDetails } from '../../../../shared/workbench/history-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { BodyViewer } from '../../components/BodyViewer';
import { readKeptAnswer, useHistoryStore } from '../../state/history-store';

type KeptAnswer = NonNullable<NonNullable<ProxyDetails['response']>['body']>;

/** The engine's note ("not kept: …") as a sentence. */
const sentence = (note: string) => `${note.charAt(0).toUpperCase()}${note.slice(1)}.`;

/** The masked text of a kept answer, read from the engine for the entry on show (lists never carry it). */
function KeptText({ entryId, masked }: { entryId: string; masked: number }) {
  const api = useWorkbenchApi();
  const kept = useHistoryStore((state) => (state.keptAnswer?.entryId === entryId ? state.keptAnswer : null));
  useEffect(() => {
    void readKeptAnswer(api, entryId);
  }, [api, entryId]);
  const text = kept?.text ?? null;
  const problem = kept?.problem ?? null;
  const bytes = useMemo(() => new TextEncoder().encode(text ?? ''), [text]);
  if (problem) return <Alert message={problem} testId="entry-answer-problem" />;
  if (text === null) return <p className="muted">Reading the kept answer…</p>;
  return (
    <>
      <BodyViewer bytes={bytes} text={text} totalBytes={bytes.length} label="Answer body" />
      <p className="muted answer-masked">
        Masked before it was kept: {masked} {masked === 1 ? 'value' : 'values'}. History never held this answer in plaintext, so there is nothing to reveal.
      </p>
    </>
  );
}

/**
 * The destination's answer body as History kept it. The engine masked it before it was stored, so History holds no
 * plaintext of it: unlike the outbound body, there is nothing to reveal, and the page says so.
 */
export function AnswerBody({ entryId, body }: { entryId: string; body: KeptAnswer | undefined }) {
  let shown;
  if (!body) {
    shown = (
      <p className="muted">
        History keeps no answer bodies unless Settings asks it to: tick “Keep destinations’ answers” under History in <a href="#/settings">Settings</a>.
      </p>
    );
  } else if (body.bytes === null) {
    shown = <p className="muted">{sentence(body.not_kept ?? 'not kept')}</p>;
  } else {
    shown = <KeptText key={entryId} entryId={entryId} masked={body.masked} />;
  }
  return (
    <section aria-labelledby="entry-answer-title" className="entry-answer">
      <h4 id="entry-answer-title">Answer</h4>
      {shown}
    </section>
  );
}
