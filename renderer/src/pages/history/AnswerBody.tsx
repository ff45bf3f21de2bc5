import { useMemo } from 'react';
import type { ProxyDetails } from '../../../../shared/workbench/contract';
import { BodyViewer } from '../../components/BodyViewer';

type KeptAnswer = NonNullable<NonNullable<ProxyDetails['response']>['body']>;

/** The engine's note ("not kept: …") as a sentence. */
const sentence = (note: string) => `${note.charAt(0).toUpperCase()}${note.slice(1)}.`;

/**
 * The destination's answer body as History kept it. The engine masked it before it was stored, so History holds no
 * plaintext of it: unlike the outbound body, there is nothing to reveal, and the page says so.
 */
export function AnswerBody({ body }: { body: KeptAnswer | undefined }) {
  const bytes = useMemo(() => new TextEncoder().encode(body?.text ?? ''), [body]);
  let shown;
  if (!body) {
    shown = (
      <p className="muted">
        History keeps no answer bodies unless Settings asks it to: tick “Keep destinations’ answers” under History in <a href="#/settings">Settings</a>.
      </p>
    );
  } else if (body.text === null) {
    shown = <p className="muted">{sentence(body.not_kept ?? 'not kept')}</p>;
  } else {
    shown = (
      <>
        <BodyViewer bytes={bytes} text={body.text} totalBytes={bytes.length} label="Answer body" />
        <p className="muted answer-masked">
          Masked before it was kept: {body.masked} {body.masked === 1 ? 'value' : 'values'}. History never held this answer in plaintext, so there is nothing to
          reveal.
        </p>
      </>
    );
  }
  return (
    <section aria-labelledby="entry-answer-title" className="entry-answer">
      <h4 id="entry-answer-title">Answer</h4>
      {shown}
    </section>
  );
}
