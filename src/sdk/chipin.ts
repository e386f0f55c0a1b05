/// <reference lib="dom" />
/**
 * chipin.js: the merchant's drop-in script (served at /sdk/chipin.js and /sdk/v1/chipin.js,
 * built from this file by src/sdk/build.ts). No dependencies. It opens the hosted payment page
 * in an accessible modal overlay (or redirects to it) and hands its outcome to the merchant's
 * callbacks. The trust rules are in ./protocol.ts.
 */
import { acceptMessage, frameUrl, originOf, type ChipinError } from './protocol.ts';

export interface OpenOptions {
  /** The purchase's `payment_url`, or… */
  paymentUrl?: string;
  /** …its uid (`pur_…`), on the Chipin origin this script came from. */
  purchaseUid?: string;
  mode?: 'overlay' | 'redirect';
  lang?: string;
  onSuccess?: (result: Record<string, unknown>, jwt: string | null) => void;
  onError?: (error: ChipinError, jwt: string | null) => void;
  onCancel?: () => void;
}

type Options = OpenOptions | (() => OpenOptions | Promise<OpenOptions>);

const script = document.currentScript as HTMLScriptElement | null;
/** Chipin's origin: where this script was loaded from. Only messages from there are heard. */
const CHIPIN_ORIGIN = originOf(script?.src) ?? location.origin;

let current: { close: (notify: boolean) => void } | undefined;

function call<A extends unknown[]>(fn: ((...args: A) => void) | undefined, ...args: A): void {
  try {
    fn?.(...args);
  } catch (e) {
    // A merchant callback that throws must not leave the overlay in a half-closed state.
    setTimeout(() => {
      throw e;
    });
  }
}

function fail(options: OpenOptions, message: string): void {
  call(options.onError, { code: 'processing_error', message, purchase_uid: options.purchaseUid ?? '', retryable: false }, null);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, css: string, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.style.cssText = css;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function overlay(url: string, purchaseUid: string, options: OpenOptions): void {
  current?.close(false);
  const opener = document.activeElement as HTMLElement | null;
  const backdrop = el('div', 'position:fixed;inset:0;z-index:2147483647;background:rgba(16,24,40,.6);display:flex;align-items:center;justify-content:center');
  const dialog = el(
    'div',
    'position:relative;width:100%;max-width:34rem;height:100%;max-height:52rem;background:#f6f7f9;border-radius:12px;overflow:hidden;box-shadow:0 10px 40px rgba(0,0,0,.3)',
    {
      role: 'dialog',
      'aria-modal': 'true',
      'aria-label': 'Chipin payment',
    },
  );
  const close = el(
    'button',
    'position:absolute;top:.5rem;right:.5rem;width:2.75rem;height:2.75rem;border:0;border-radius:999px;background:#fff;color:#1d2433;font:1.5rem/1 sans-serif;cursor:pointer;box-shadow:0 1px 3px rgba(0,0,0,.2)',
    {
      type: 'button',
      'aria-label': 'Close payment',
    },
  );
  close.textContent = '\u00d7';
  const frame = el('iframe', 'border:0;width:100%;height:100%;display:block', { src: url, title: 'Chipin secure payment', allow: 'payment' });
  dialog.append(frame, close);
  backdrop.append(dialog);

  // Everything else on the page is inert while the dialog is open: out of the tab order and
  // unreachable by assistive technology. Focus leaving the dialog is brought back (browsers without `inert`).
  const others = Array.from(document.body.children).filter((n) => !n.hasAttribute('inert')) as HTMLElement[];
  for (const n of others) n.setAttribute('inert', '');
  const onFocus = (e: FocusEvent) => {
    if (!dialog.contains(e.target as Node)) close.focus();
  };
  // Escape while focus is on our side; inside the frame, the hosted page posts `chipin:cancel`.
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      done(true);
    } else if (e.key === 'Tab') {
      // Two stops: the close button and the frame.
      e.preventDefault();
      (document.activeElement === close ? frame : close).focus();
    }
  };
  const onMessage = (e: MessageEvent) => {
    const m = acceptMessage(e, { chipinOrigin: CHIPIN_ORIGIN, frame: frame.contentWindow, purchaseUid });
    if (!m) return;
    if (m.type === 'chipin:result') {
      finish();
      call(options.onSuccess, m.result, m.jwt);
    } else if (m.type === 'chipin:error') {
      if (!m.error.retryable) finish();
      call(options.onError, m.error, m.jwt);
    } else {
      done(true);
    }
  };
  function finish(): void {
    if (current !== handle) return;
    current = undefined;
    window.removeEventListener('message', onMessage);
    document.removeEventListener('keydown', onKey, true);
    document.removeEventListener('focusin', onFocus, true);
    for (const n of others) n.removeAttribute('inert');
    backdrop.remove();
    opener?.focus?.();
  }
  function done(notify: boolean): void {
    if (current !== handle) return;
    finish();
    if (notify) call(options.onCancel);
  }
  const handle = { close: done };
  current = handle;
  close.addEventListener('click', () => done(true));
  window.addEventListener('message', onMessage);
  document.addEventListener('keydown', onKey, true);
  document.addEventListener('focusin', onFocus, true);
  document.body.append(backdrop);
  frame.focus();
}

/** Opens the hosted payment page: in a modal overlay (default) or by redirecting to it. */
function open(options: OpenOptions): void {
  const mode = options.mode ?? 'overlay';
  const target = frameUrl(options, CHIPIN_ORIGIN, mode);
  if (!target) return fail(options, `Chipin.open needs a paymentUrl on ${CHIPIN_ORIGIN} or a purchaseUid`);
  if (mode === 'redirect') return location.assign(target.url);
  overlay(target.url, target.purchaseUid, options);
}

/**
 * Binds `open` to a merchant's button. `options` may be a function (sync or async) called on
 * each click, so the shop's back end can create the purchase when the shopper asks to pay.
 */
function button(element: Element | string, options: Options): void {
  const node = typeof element === 'string' ? document.querySelector(element) : element;
  if (!node) throw new Error(`Chipin.button: no element ${String(element)}`);
  node.addEventListener('click', (e) => {
    e.preventDefault();
    Promise.resolve(typeof options === 'function' ? options() : options).then(open, (err: unknown) =>
      fail(typeof options === 'function' ? {} : options, `could not prepare the payment: ${err instanceof Error ? err.message : String(err)}`),
    );
  });
}

(window as unknown as { Chipin: unknown }).Chipin = Object.freeze({ version: '1', open, button, close: () => current?.close(true) });
