import { useRef, useState, type CSSProperties, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { storedPreference } from '../state/stored-preference';
import './split-pane.css';

const MIN = 0.2;
const MAX = 0.8;
const STEP = 0.05;

const clamp = (ratio: number) => Math.min(MAX, Math.max(MIN, ratio));

const storedRatio = (key: string) =>
  storedPreference(key, (value) => {
    const ratio = Number(value);
    return ratio >= MIN && ratio <= MAX ? ratio : undefined;
  });

interface SplitPaneProps {
  /** What the divider separates, for screen readers ("Requests and request"). */
  label: string;
  /** Where the chosen split is remembered. */
  storageKey: string;
  /** The first pane's share of the width at first. */
  initial?: number;
  start: ReactNode;
  end: ReactNode;
}

/**
 * Two panes side by side with a divider the user drags, or moves with the arrow keys (Home and End for the limits);
 * the split is remembered. Narrow windows stack the panes and hide the divider.
 */
export function SplitPane({ label, storageKey, initial = 0.5, start, end }: SplitPaneProps) {
  const [ratio, setRatio] = useState(() => storedRatio(storageKey).read() ?? initial);
  const container = useRef<HTMLDivElement>(null);

  const choose = (next: number) => {
    const value = clamp(next);
    setRatio(value);
    storedRatio(storageKey).write(value);
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (!event.currentTarget.hasPointerCapture(event.pointerId) || !container.current) return;
    const box = container.current.getBoundingClientRect();
    choose((event.clientX - box.left) / box.width);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, number> = { ArrowLeft: ratio - STEP, ArrowRight: ratio + STEP, Home: MIN, End: MAX };
    if (!(event.key in moves)) return;
    event.preventDefault();
    choose(moves[event.key]);
  };

  return (
    <div className="split-pane" ref={container} style={{ '--split': ratio } as CSSProperties}>
      <div className="split-pane-start">{start}</div>
      <div
        className="split-pane-divider"
        role="separator"
        aria-orientation="vertical"
        aria-label={label}
        aria-valuemin={MIN * 100}
        aria-valuemax={MAX * 100}
        aria-valuenow={Math.round(ratio * 100)}
        tabIndex={0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onKeyDown={onKeyDown}
      />
      <div className="split-pane-end">{end}</div>
    </div>
  );
}
