// The back office's copy buttons: a button with data-copy="<input id>" copies that input's value
// (the PSP notification URL) and says so in the nearest [data-copy-status] region. Without this
// script the buttons stay hidden and the value is still there to select in its read-only input.
(function () {
  'use strict';
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var input = document.getElementById(button.getAttribute('data-copy'));
    if (!input) return;
    var status = button.closest('section') && button.closest('section').querySelector('[data-copy-status]');
    button.hidden = false;
    button.addEventListener('click', function () {
      var done = function () {
        if (status) status.textContent = button.getAttribute('data-copied');
      };
      var fallback = function () {
        input.select();
        if (document.execCommand('copy')) done();
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(done, fallback);
      else fallback();
    });
  });
})();
