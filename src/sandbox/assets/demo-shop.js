// The demo shop's own front end: what a merchant writes around chipin.js. Its back end (here
// /sandbox/demo-shop/purchases) creates the purchase when the shopper clicks; the JWT of the
// outcome goes back to its back end to be verified with the offer's secret.
(function () {
  'use strict';
  var out = document.getElementById('outcome');
  // The page's words, in its language (data-texts); `{name}` is filled in by say().
  var texts = JSON.parse(out.dataset.texts);
  var lang = out.dataset.lang;
  function say(key, values) {
    return texts[key].replace(/\{(\w+)\}/g, function (_, name) {
      return String(values[name]);
    });
  }
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
      show(out.textContent + '\n' + texts[v.valid ? 'jwtValid' : 'jwtInvalid']);
    });
  }
  function options(kind) {
    return function () {
      show(texts.opening);
      return post('/sandbox/demo-shop/purchases', { kind: kind, lang: lang }).then(function (p) {
        return {
          paymentUrl: p.payment_url,
          onSuccess: function (result, jwt) {
            show(say('paid', { uid: result.purchase.uid, id: result.transaction.id, status: result.transaction.status }));
            verify(jwt);
          },
          onError: function (error, jwt) {
            show(say(error.retryable ? 'errorRetryable' : 'error', { code: error.code, message: error.message }));
            if (!error.retryable) verify(jwt);
          },
          onCancel: function () {
            show(texts.cancelled);
          },
        };
      });
    };
  }
  window.Chipin.button('#pay-3x', options('installments'));
  window.Chipin.button('#split', options('shared'));
})();
