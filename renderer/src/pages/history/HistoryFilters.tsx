import { useEffect, useState } from 'react';
import type { HistoryFilter, HistorySender, HistoryView } from '../../../../shared/workbench/history-filter';
import { useApplicationName, useApplicationsStore } from '../../state/applications-store';
import { NO_FILTER, useHistoryStore } from '../../state/history-store';
import { filterSentence, SENDERS, VIEWS } from './filter-text';

/** Typing settles for this long before the engine is asked again. */
const TYPING_MS = 250;

/** An instant as a datetime-local field writes it (local time, to the second), and back. */
const toLocalInput = (iso: string | undefined) => {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : undefined);

/** A text field that tells its value once typing settles, and takes a new one from outside (the address). */
function SettlingInput({ label, value, onSettle, placeholder, id }: { label: string; value: string; onSettle: (value: string) => void; placeholder?: string; id?: string }) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    setText(value);
  }
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onSettle(text), TYPING_MS);
    return () => clearTimeout(timer);
  }, [text, value, onSettle]);
  return (
    <input type="search" id={id} aria-label={label} placeholder={placeholder} spellCheck={false} value={text} onChange={(event) => setText(event.target.value)} />
  );
}

/** A sender, or an application by name: an application is whoever acted as it, so choosing one leaves the sender out. */
function SentBy({ filter, onChange }: { filter: HistoryFilter; onChange: (patch: Partial<HistoryFilter>) => void }) {
  const applications = useApplicationsStore((state) => state.value);
  const value = filter.application_id !== undefined ? `app:${filter.application_id}` : (filter.sender ?? '');
  const choose = (chosen: string) =>
    onChange(
      chosen.startsWith('app:')
        ? { sender: undefined, application_id: chosen.slice('app:'.length) }
        : { sender: (chosen || undefined) as HistorySender | undefined, application_id: undefined },
    );
  return (
    <select aria-label="Sent by" value={value} onChange={(event) => choose(event.target.value)}>
      <option value="">Sent by anyone</option>
      {(Object.keys(SENDERS) as HistorySender[]).map((sender) => (
        <option key={sender} value={sender}>
          {SENDERS[sender].label}
        </option>
      ))}
      <optgroup label="As the application">
        {applications?.map((app) => (
          <option key={app.id} value={`app:${app.id}`}>
            {app.name} · {app.type}
          </option>
        ))}
      </optgroup>
    </select>
  );
}

/** What the list shows: the engine applies it to every request it keeps, and the address remembers it. */
export function HistoryFilters({ filter, onChange }: { filter: HistoryFilter; onChange: (filter: HistoryFilter) => void }) {
  const applicationName = useApplicationName();
  const narrowed = Object.entries(filter).some(([key, value]) => value !== NO_FILTER[key as keyof HistoryFilter]);
  const change = (patch: Partial<HistoryFilter>) => onChange({ ...filter, ...patch });
  const more = useHistoryStore((state) => state.moreFilters);
  const setMore = useHistoryStore((state) => state.showMoreFilters);
  const open = more || filter.sender !== undefined || filter.application_id !== undefined || filter.transaction_id !== undefined || filter.token_id !== undefined || filter.since !== undefined || filter.until !== undefined;
  return (
    <div className="history-filters">
      <div className="history-filter">
        <select aria-label="Show" value={filter.view} onChange={(event) => change({ view: event.target.value as HistoryView })}>
          {(Object.keys(VIEWS) as HistoryView[]).map((view) => (
            <option key={view} value={view}>
              {VIEWS[view].label}
            </option>
          ))}
        </select>
        <SettlingInput
          id="history-search"
          label="Search the requests"
          placeholder="Path, status or trace id  (/)"
          value={filter.text}
          onSettle={(text) => change({ text })}
        />
        <button type="button" className="small" aria-expanded={open} onClick={() => setMore(!open)}>
          More filters
        </button>
        {narrowed && (
          <button type="button" className="small" onClick={() => onChange(NO_FILTER)}>
            Clear filters
          </button>
        )}
      </div>
      {open && (
        <div className="history-filter more">
          <SentBy filter={filter} onChange={change} />
          <SettlingInput label="Transaction id" placeholder="Transaction id" value={filter.transaction_id ?? ''} onSettle={(id) => change({ transaction_id: id.trim() || undefined })} />
          <SettlingInput label="Token id" placeholder="Token id" value={filter.token_id ?? ''} onSettle={(id) => change({ token_id: id.trim() || undefined })} />
          <label>
            From
            <input type="datetime-local" step={1} value={toLocalInput(filter.since)} onChange={(event) => change({ since: fromLocalInput(event.target.value) })} />
          </label>
          <label>
            To
            <input type="datetime-local" step={1} value={toLocalInput(filter.until)} onChange={(event) => change({ until: fromLocalInput(event.target.value) })} />
          </label>
        </div>
      )}
      <p role="status" aria-label="Active filters" className="muted active-filters">
        {filterSentence(filter, applicationName)}
      </p>
    </div>
  );
}
