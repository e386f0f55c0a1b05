// The "being confirmed" wait (docs/hosted-payment.md#an-attempt-in-progress): reloads the status
// address every few seconds, as the page's <noscript> refresh does without script, and lets the
// shopper pause and resume it (WCAG 2.2.1: a timed change the user can turn off).
(function () {
  'use strict';
  var box = document.getElementById('confirming');
  var button = document.getElementById('confirming-pause');
  if (!box || !button) return;
  var url = box.getAttribute('data-status');
  var seconds = Number(box.getAttribute('data-seconds')) || 2;
  var timer = null;
  function start() {
    timer = setTimeout(function () {
      window.location.replace(url);
    }, seconds * 1000);
    button.textContent = button.getAttribute('data-pause');
  }
  button.addEventListener('click', function () {
    if (timer) {
      clearTimeout(timer);
      timer = null;
      button.textContent = button.getAttribute('data-resume');
    } else start();
  });
  button.hidden = false;
  start();
})();
