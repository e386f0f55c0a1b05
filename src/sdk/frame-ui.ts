/// <reference lib="dom" />
/**
 * The DOM side of a payment frame on a merchant's page, for the scripts built from src/sdk: the
 * iframe, its close button, and the accessible modal around it (dialog role, the rest of the page
 * inert, focus kept inside and given back). chipin.js still holds its own copy of the modal:
 * `/sdk/v1/chipin.js` is immutable and pinned by merchants with its SRI hash
 * (docs/front-end.md), so its bytes may not change; its next version is built on this module.
 */

/** Calls a merchant callback; one that throws must not leave the frame half-closed. */
export function call<A extends unknown[]>(fn: unknown, ...args: A): void {
  if (typeof fn !== 'function') return;
  try {
    (fn as (...a: A) => void)(...args);
  } catch (e) {
    setTimeout(() => {
      throw e;
    });
  }
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, css: string, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.style.cssText = css;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** The payment iframe: full size of its box, allowed the Payment Request API; `title` names it (in the shop's language: ./words.ts). */
export function paymentFrame(url: string, title: string): HTMLIFrameElement {
  return el('iframe', 'border:0;width:100%;height:100%;display:block', { src: url, title, allow: 'payment' });
}

/** The round × over the frame's top right corner (the hosted page keeps its own links clear of it: `nav.lang.embedded`), named `label`. */
export function closeButton(label: string, className?: string): HTMLButtonElement {
  const button = el(
    'button',
    'position:absolute;top:.5rem;right:.5rem;width:2.75rem;height:2.75rem;border:0;border-radius:999px;background:#fff;color:#1d2433;font:1.5rem/1 sans-serif;cursor:pointer;box-shadow:0 1px 3px rgba(0,0,0,.2)',
    { type: 'button', 'aria-label': label, ...(className ? { class: className } : {}) },
  );
  button.textContent = '\u00d7';
  return button;
}

/**
 * Shows `dialog` (holding `frame` and maybe `close`) as a modal over the page, inside a backdrop
 * (`backdropClass` lets the merchant's stylesheet restyle it), and returns what takes it down.
 * Escape pressed on our side calls `onEscape` (inside the frame, the hosted page posts
 * `chipin:cancel` instead: keys pressed there never reach this page).
 */
export function modal(
  dialog: HTMLElement,
  parts: { frame: HTMLIFrameElement; close?: HTMLButtonElement; label: string; backdropClass?: string; backdropCss?: string; onEscape?: () => void },
): () => void {
  const opener = document.activeElement as HTMLElement | null;
  const backdrop = el('div', `position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;${parts.backdropCss ?? ''}`);
  if (parts.backdropClass) backdrop.className = parts.backdropClass;
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.setAttribute('aria-label', parts.label);
  backdrop.append(dialog);
  // Everything else on the page is inert while the dialog is open: out of the tab order and
  // unreachable by assistive technology. Focus leaving the dialog is brought back (browsers without `inert`).
  const others = Array.from(document.body.children).filter((n) => !n.hasAttribute('inert')) as HTMLElement[];
  for (const n of others) n.setAttribute('inert', '');
  const home = parts.close ?? parts.frame;
  const onFocus = (e: FocusEvent) => {
    if (!dialog.contains(e.target as Node)) home.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && parts.onEscape) {
      e.preventDefault();
      parts.onEscape();
    } else if (e.key === 'Tab') {
      // At most two stops: the close button and the frame.
      e.preventDefault();
      (document.activeElement === parts.close ? parts.frame : home).focus();
    }
  };
  document.addEventListener('keydown', onKey, true);
  document.addEventListener('focusin', onFocus, true);
  document.body.append(backdrop);
  parts.frame.focus();
  return () => {
    document.removeEventListener('keydown', onKey, true);
    document.removeEventListener('focusin', onFocus, true);
    for (const n of others) n.removeAttribute('inert');
    backdrop.remove();
    opener?.focus?.();
  };
}
