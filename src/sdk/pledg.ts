/// <reference lib="dom" />
/**
 * The Pledg script: `window.Pledg` as the original provider's plugin.min.js defines it, so its
 * shop plugins run against Chipin unchanged (served at /ecard-plugin/{master,staging}/plugin.min.js,
 * built by src/sdk/build.ts; docs/front-end.md#the-pledg-script-plugins-of-the-original-provider).
 * `new Pledg(button, settings)` binds the button; a click checks the settings and opens
 * `/purchase?<settings>&embed=1&parent_origin=…` in an iframe, inside `containerElement` or in a
 * popin, and hands the outcome to the original callbacks. The trust rules are in ./protocol.ts.
 */
import { call, closeButton, el, modal, paymentFrame } from './frame-ui.ts';
import { paymentError, purchaseQuery, settingsProblem, type PledgError } from './pledg-settings.ts';
import { originOf, PROTOCOL_VERSION } from './protocol.ts';
import { acceptPledgMessage, type HostMessage } from './pledg-protocol.ts';
import { scriptWords } from './words.ts';

type Settings = Record<string, unknown>;

const script = document.currentScript as HTMLScriptElement | null;
/** Chipin's origin: where this script was loaded from. Only messages from there are heard, and `/purchase` is opened there. */
const CHIPIN_ORIGIN = originOf(script?.src) ?? location.origin;

/**
 * The popin's backdrop default, at zero specificity (`:where`) and first in the head: a merchant's
 * own `.pledg-iframe-overlay { background: … }` wins, as with the original. Layout stays inline,
 * so the popin works even where a CSP refuses this style element.
 */
function overlayStyle(): void {
  if (document.getElementById('pledg-iframe-style')) return;
  const style = el('style', '', { id: 'pledg-iframe-style' });
  style.textContent = ':where(.pledg-iframe-overlay){background:rgba(16,24,40,.6)}';
  document.head.prepend(style);
}

function fail(settings: Settings, error: PledgError, jwt: string | null = null): void {
  call(settings.onError, error, jwt);
}

/** One open frame: its element, and the purchase it shows once its page named it. */
interface Session {
  frame: HTMLIFrameElement;
  purchaseUid?: string;
}

class Pledg {
  private settings: Settings;
  private session: Session | undefined;
  private clicked = false;

  constructor(button: unknown, settings: unknown) {
    this.settings = typeof settings === 'object' && settings !== null ? { ...(settings as Settings) } : {};
    const bindable = button instanceof Element;
    if (bindable) {
      button.addEventListener('click', (e) => {
        e.preventDefault();
        this.clicked = true;
        this.open();
      });
    }
    // An initialisation error is told even if the shopper never clicks (as the original did),
    // after the constructor returned, unless a click already told it.
    setTimeout(() => {
      if (this.clicked) return;
      const problem = bindable ? this.problem() : 'The button given to Pledg is not an element';
      if (problem) fail(this.settings, { type: 'invalid_request_error', message: problem });
    });
  }

  /** Merges settings into the instance's (the next opening uses them; callbacks apply at once). */
  configure(settings: unknown): void {
    if (typeof settings === 'object' && settings !== null) Object.assign(this.settings, settings);
  }

  /** With `externalCheckoutValidation`: submits the hosted form, as its own pay button would. */
  validateCheckout(): void {
    const s = this.session;
    if (!s?.purchaseUid) return;
    const message: HostMessage = { chipin: PROTOCOL_VERSION, type: 'chipin:validate-checkout', purchase_uid: s.purchaseUid };
    s.frame.contentWindow?.postMessage(message, CHIPIN_ORIGIN);
  }

  private problem(): string | undefined {
    const container = this.settings.containerElement;
    if (container !== undefined && container !== null && !(container instanceof Element)) return 'The provided property containerElement is invalid';
    return settingsProblem(this.settings);
  }

  private open(): void {
    if (this.session) return;
    const s = this.settings;
    const problem = this.problem();
    if (problem) return fail(s, { type: 'invalid_request_error', message: problem });
    // The frame's and the buttons' names in the language the settings pass (`lang: 'fr_FR'`), else the shop page's.
    const words = scriptWords(typeof s.lang === 'string' ? s.lang : document.documentElement.lang);
    const frame = paymentFrame(`${CHIPIN_ORIGIN}/purchase?${purchaseQuery(s, location.origin)}`, words.frameTitle);
    const closable = s.showCloseButton !== false;
    const close = closable ? closeButton(words.closePayment, 'pledg-iframe-close') : undefined;
    const container = s.containerElement as Element | null | undefined;
    const wrapper = el(
      'div',
      container
        ? 'position:relative;width:100%;height:46rem;max-height:100vh'
        : 'position:relative;width:100%;max-width:34rem;height:100%;max-height:52rem;background:#f6f7f9;border-radius:12px;overflow:hidden;box-shadow:0 10px 40px rgba(0,0,0,.3)',
      { class: 'pledg-iframe-wrapper' },
    );
    wrapper.append(frame);
    if (close) wrapper.append(close);

    const session: Session = { frame };
    let takeDown: () => void;
    // Ends the session once: the frame goes, onClose, then the outcome's callback.
    const finish = (outcome?: () => void) => {
      if (this.session !== session) return;
      this.session = undefined;
      window.removeEventListener('message', onMessage);
      takeDown();
      call(this.settings.onClose);
      outcome?.();
    };
    const cancel = () => finish(() => call(this.settings.onCancel));
    const onMessage = (e: MessageEvent) => {
      const m = acceptPledgMessage(e, { chipinOrigin: CHIPIN_ORIGIN, frame: frame.contentWindow, purchaseUid: session.purchaseUid });
      if (!m) return;
      if (m.type === 'chipin:invalid-request') return finish(() => fail(this.settings, { type: 'invalid_request_error', message: m.message }));
      session.purchaseUid = m.purchase_uid;
      switch (m.type) {
        case 'chipin:ready':
          if (this.settings.externalCheckoutValidation === true) {
            const reply: HostMessage = { chipin: PROTOCOL_VERSION, type: 'chipin:external-validation', purchase_uid: m.purchase_uid };
            frame.contentWindow?.postMessage(reply, CHIPIN_ORIGIN);
          }
          return;
        case 'chipin:form-status':
          return call(this.settings.onCheckoutFormStatusChange, m.ready);
        case 'chipin:result':
          return finish(() => call(this.settings.onSuccess, m.result, m.jwt));
        case 'chipin:error':
          // A refusal with attempts left: the shopper retries in the frame, nothing is raised.
          if (!m.error.retryable) finish(() => fail(this.settings, paymentError(m.error), m.jwt));
          return;
        case 'chipin:cancel':
          // Escape inside the frame closes a popin the shopper may close; an inline frame stays.
          if (!container && closable) cancel();
          return;
      }
    };
    close?.addEventListener('click', cancel);
    window.addEventListener('message', onMessage);
    this.session = session;
    if (container) {
      container.append(wrapper);
      takeDown = () => wrapper.remove();
    } else {
      overlayStyle();
      takeDown = modal(wrapper, { frame, close, label: words.dialog, backdropClass: 'pledg-iframe-overlay', onEscape: closable ? cancel : undefined });
    }
    call(s.onOpen);
  }
}

(window as unknown as { Pledg: unknown }).Pledg = Pledg;
