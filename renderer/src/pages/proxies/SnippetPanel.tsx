import { useState, type ReactNode } from 'react';
import { CopyButton } from '../../components/CopyButton';

/**
 * "Call it": how a client calls what the page edits, as code to copy, in the languages `snippets` offers (label →
 * code; the first shown first); `hint` says where the code's keys come from. `title` names the panel.
 */
export function SnippetPanel({ snippets, hint, title = 'Call it' }: { snippets: Readonly<Record<string, string>>; hint: ReactNode; title?: string }) {
  const labels = Object.keys(snippets);
  const [chosen, choose] = useState(labels[0]);
  const label = labels.includes(chosen) ? chosen : labels[0];
  const code = snippets[label];
  return (
    <section className="panel proxy-snippet" aria-labelledby="proxy-snippet-title">
      <h2 id="proxy-snippet-title">{title}</h2>
      <div className="segments" role="radiogroup" aria-label="Snippet language">
        {labels.map((option) => (
          <label key={option}>
            <input type="radio" name="proxy-snippet-format" checked={label === option} onChange={() => choose(option)} />
            {option}
          </label>
        ))}
      </div>
      <pre className="code-block proxy-snippet-code" aria-label={`${label} snippet`} tabIndex={0}>
        {code}
      </pre>
      <p className="muted proxy-hint">{hint}</p>
      <CopyButton text={code} label={`Copy the ${label} snippet`} caption="Copy" />
    </section>
  );
}
