import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { tabKeyLabel } from './open-request-keys';

/** An open request as the list names it. */
export interface MenuRequest {
  id: string;
  method: string;
  label: string;
  /** What marks it unsaved, if it is. */
  mark: ReactNode;
  active: boolean;
  /** It cannot be shown now (another request is in flight). */
  disabled: boolean;
}

/**
 * Every open request in one list, for when the strip holds more than it shows: a menu button, then a menu (arrows,
 * Home and End move, Enter shows the request, Escape goes back to the button).
 */
export function OpenRequestsMenu({ requests, onShow }: { requests: readonly MenuRequest[]; onShow: (id: string) => void }) {
  const [open, setOpen] = useState(false);
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitemradio"]') ?? [])];
  useLayoutEffect(() => {
    if (!open) return;
    const list = items();
    (list.find((item) => item.getAttribute('aria-checked') === 'true') ?? list[0])?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  const dismiss = () => {
    setOpen(false);
    button.current?.focus();
  };
  const pick = (request: MenuRequest) => {
    if (request.disabled) return;
    setOpen(false);
    onShow(request.id);
  };
  const onMenuKeyDown = (event: KeyboardEvent) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: list.length - 1 }[event.key];
    if (next !== undefined) {
      event.preventDefault();
      list[(next + list.length) % list.length].focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      dismiss();
    } else if (event.key === 'Tab') setOpen(false);
  };

  return (
    <div className="open-requests-menu" ref={wrapper}>
      <button
        type="button"
        ref={button}
        className="all-requests"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={`${requests.length} open requests`}
        title={`Every open request (${tabKeyLabel('previous')} and ${tabKeyLabel('next')} move between them)`}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
          event.preventDefault();
          setOpen(true);
        }}
      >
        {requests.length} open <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div className="menu" role="menu" id={menuId} aria-label="Open requests" ref={menu} onKeyDown={onMenuKeyDown}>
          {requests.map((request) => (
            <button
              key={request.id}
              type="button"
              role="menuitemradio"
              aria-checked={request.active}
              aria-disabled={request.disabled || undefined}
              tabIndex={-1}
              onClick={() => pick(request)}
            >
              <span className="saved-method">{request.method}</span> <span className="menu-label">{request.label}</span>
              {request.mark}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
