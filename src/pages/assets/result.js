// Talks to the merchant's page when ours is framed by it (chipin.js's overlay, or the merchant's
// own iframe): posts the payment's result or error (and its JWT signed with the offer's secret)
// to the merchant's origin only, never '*'; inside chipin.js's overlay, Escape asks it to close
// (keys pressed in a frame never reach the page around it). Nothing is read from the merchant's
// page but the Pledg script's two requests below, and no form field (card data) is ever posted.
(function () {
  'use strict';
  var node = document.getElementById('chipin-frame');
  if (!node || window.parent === window) return;
  var data = JSON.parse(node.textContent);
  if (data.message) window.parent.postMessage(data.message, data.target);
  if (data.embed) {
    document.addEventListener('keydown', function (e) {
      if (e.key === 'Escape') window.parent.postMessage({ chipin: 1, type: 'chipin:cancel', purchase_uid: data.purchase_uid }, data.target);
    });
    // Says the frame listens: a key pressed before this script ran reached nobody.
    document.documentElement.setAttribute('data-chipin-frame', 'ready');
    externalValidation(data);
  }

  // The Pledg script (src/sdk/pledg-protocol.ts): this page names its purchase (the script opened
  // /purchase and did not know it), and with the merchant's own pay button
  // (externalCheckoutValidation) hides ours, reports whether the form can be submitted and
  // submits it when asked. Heard only from the parent window, from the purchase's merchant
  // origin, with exactly the protocol's shape and this purchase's uid; a card field is never read.
  function externalValidation(data) {
    window.parent.postMessage({ chipin: 1, type: 'chipin:ready', purchase_uid: data.purchase_uid }, data.target);
    var form = document.getElementById('checkout');
    var button = document.getElementById('pay-button');
    if (!form || !button) return;
    var on = false;
    var told;
    function tell() {
      // checkout.js disables the button while the shares do not add up; the card fields are `required`.
      var ready = form.checkValidity() && !button.disabled;
      if (ready === told) return;
      told = ready;
      window.parent.postMessage({ chipin: 1, type: 'chipin:form-status', purchase_uid: data.purchase_uid, ready: ready }, data.target);
    }
    window.addEventListener('message', function (e) {
      var m = e.data;
      if (e.source !== window.parent || e.origin !== data.target || !m || typeof m !== 'object' || Object.keys(m).length !== 3) return;
      if (m.chipin !== 1 || m.purchase_uid !== data.purchase_uid) return;
      if (m.type === 'chipin:external-validation' && !on) {
        on = true;
        button.hidden = true;
        button.style.display = 'none';
        form.addEventListener('input', tell);
        form.addEventListener('change', tell);
        tell();
      } else if (m.type === 'chipin:validate-checkout' && on) {
        // As a press of the pay button: checkout.js's checks run, then the form posts.
        button.click();
      }
    });
  }
})();
