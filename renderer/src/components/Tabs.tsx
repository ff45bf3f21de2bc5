import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import './tabs.css';

export interface Tab {
  id: string;
  label: ReactNode;
  panel: () => ReactNode;
}

interface TabsProps {
  /** The tab list's accessible name. */
  label: string;
  tabs: readonly Tab[];
  selected: string;
  onSelect: (id: string) => void;
}

/** A tab list as the ARIA pattern has it: one tab in the Tab order, arrows, Home and End move between them. */
export function Tabs({ label, tabs, selected, onSelect }: TabsProps) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const current = tabs.find((tab) => tab.id === selected) ?? tabs[0];

  const onKeyDown = (event: KeyboardEvent) => {
    const at = tabs.indexOf(current);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length];
    onSelect(tab.id);
    list.current?.querySelector<HTMLElement>(`[data-tab="${tab.id}"]`)?.focus();
  };

  return (
    <div className="tabs">
      <div className="tab-list" role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`${base}-${tab.id}`}
            data-tab={tab.id}
            aria-selected={tab === current}
            aria-controls={`${base}-${tab.id}-panel`}
            tabIndex={tab === current ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div className="tab-panel" role="tabpanel" id={`${base}-${current.id}-panel`} aria-labelledby={`${base}-${current.id}`}>
        {current.panel()}
      </div>
    </div>
  );
}
