// Talks to the merchant's page when ours is framed by it (chipin.js's overlay, or the merchant's
// own iframe): posts the payment's result or error (and its JWT signed with the offer's secret)
// to the merchant's origin only, never '*'; inside chipin.js's overlay, Escape asks it to close
// (keys pressed in a frame never reach the page around it). Nothing is read from the merchant's
// page, and no form field (card data) is ever posted.
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
  }
})();
