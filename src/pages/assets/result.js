// Hands the payment result to the merchant's page when ours is embedded in it (an iframe):
// the contract's back-mode result, and its JWT signed with the offer's secret.
(function () {
  'use strict';
  var node = document.getElementById('chipin-result');
  if (!node || window.parent === window) return;
  var data = JSON.parse(node.textContent);
  window.parent.postMessage({ type: data.type, result: data.result, jwt: data.jwt }, data.target);
})();
