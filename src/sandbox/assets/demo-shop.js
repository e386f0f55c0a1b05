// The demo shop's own front end: what a merchant writes around chipin.js. Its back end (here
// /sandbox/demo-shop/purchases) creates the purchase when the shopper clicks; the JWT of the
// outcome goes back to its back end to be verified with the offer's secret.
(function () {
  'use strict';
  var out = document.getElementById('outcome');
  function show(text) {
    out.textContent = text;
  }
  function post(url, body) {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    });
  }
  function verify(jwt) {
    // Kept on the page for the curious developer (and the browser test): what the shop would send its server.
    out.dataset.jwt = jwt || '';
    if (!jwt) return;
    post('/sandbox/demo-shop/verify', { jwt: jwt }).then(function (v) {
      show(out.textContent + '\nJWT checked by the shop\u2019s server with the offer secret: ' + (v.valid ? 'valid' : 'INVALID'));
    });
  }
  function options(kind) {
    return function () {
      show('Opening the payment\u2026');
      return post('/sandbox/demo-shop/purchases', { kind: kind }).then(function (p) {
        return {
          paymentUrl: p.payment_url,
          onSuccess: function (result, jwt) {
            show('Paid! ' + result.purchase.uid + ' \u2014 transaction ' + result.transaction.id + ' (' + result.transaction.status + ')');
            verify(jwt);
          },
          onError: function (error, jwt) {
            show('Payment error: ' + error.code + ' \u2014 ' + error.message + (error.retryable ? ' (the shopper can try again)' : ''));
            if (!error.retryable) verify(jwt);
          },
          onCancel: function () {
            show('Payment cancelled by the shopper.');
          },
        };
      });
    };
  }
  window.Chipin.button('#pay-3x', options('installments'));
  window.Chipin.button('#split', options('shared'));
})();
