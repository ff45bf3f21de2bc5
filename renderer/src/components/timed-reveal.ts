import { useEffect, useState } from 'react';

/** How long plaintext stays on screen after the user reveals it. */
export const REVEAL_SECONDS = 30;

interface Shown<T> {
  value: T;
  until: number;
  secondsLeft: number;
}

export interface TimedReveal<T> {
  /** The plaintext on show, or null. */
  revealed: T | null;
  secondsLeft: number;
  show(value: T): void;
  hide(): void;
}

/**
 * Plaintext the user asked to see, held by this view alone (never a store): hidden after REVEAL_SECONDS, on Hide, when
 * the window loses focus or the page is hidden, and gone with the view when the user moves to another.
 */
export function useTimedReveal<T>(): TimedReveal<T> {
  const [shown, setShown] = useState<Shown<T> | null>(null);
  const until = shown?.until;
  useEffect(() => {
    if (until === undefined) return;
    const hide = () => setShown(null);
    const tick = setInterval(() => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left <= 0) hide();
      else setShown((current) => current && { ...current, secondsLeft: left });
    }, 250);
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') hide();
    };
    window.addEventListener('blur', hide);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearInterval(tick);
      window.removeEventListener('blur', hide);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [until]);
  return {
    revealed: shown?.value ?? null,
    secondsLeft: shown?.secondsLeft ?? 0,
    show: (value) => setShown({ value, until: Date.now() + REVEAL_SECONDS * 1000, secondsLeft: REVEAL_SECONDS }),
    hide: () => setShown(null),
  };
}
