// Live help for the leader's form: shares add up, the leader's share, the money summary and the
// Pay button follow, mistakes are announced. Checked when a field is left (change) or on submit,
// never on every keystroke, and only real changes are announced. The server checks everything
// again; without this script the form works.
(function () {
  'use strict';
  // After a refused or invalid submit the error summary takes the focus (autofocus does it
  // without JavaScript; this covers browsers that skip autofocus on a non-field).
  var summary = document.getElementById('error-summary');
  if (summary && document.activeElement !== summary) summary.focus();
  var form = document.getElementById('checkout');
  // An expiry date the server would refuse is caught here, before the card's fields go: the server
  // never writes card data back into a page, so its refusal empties the card number and CVC. The
  // rule and the words are the server's (checkCard in src/pages/card-form.ts, the data-error text).
  var expiry = document.getElementById('card_expiry');
  function expiryOk(text) {
    var m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(text.trim());
    if (!m) return false;
    var month = Number(m[1]);
    var year = Number(m[2]) < 100 ? 2000 + Number(m[2]) : Number(m[2]);
    return month >= 1 && month <= 12 && year <= new Date().getUTCFullYear() + 30;
  }
  if (form && expiry) {
    form.addEventListener('submit', function (event) {
      var shown = document.getElementById('card_expiry_error');
      if (expiryOk(expiry.value)) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      if (!shown) {
        shown = document.createElement('p');
        shown.className = 'field-error';
        shown.id = 'card_expiry_error';
        shown.textContent = expiry.dataset.error;
        expiry.parentNode.insertBefore(shown, expiry);
      }
      expiry.setAttribute('aria-invalid', 'true');
      expiry.setAttribute('aria-describedby', 'card_expiry_error card_expiry_hint');
      expiry.focus();
    });
  }
  var fs = document.getElementById('friends');
  if (!form || !fs) return;
  var amount = Number(fs.dataset.amount);
  var currency = fs.dataset.currency;
  var decimals = Number(fs.dataset.decimals);
  var max = Number(fs.dataset.max);
  var rows = document.getElementById('friend-rows');
  var leaderShare = document.getElementById('leader-share');
  var error = document.getElementById('shares-error');
  var button = document.getElementById('pay-button');
  var addButton = document.getElementById('add-friend');
  var splitButton = document.getElementById('split-evenly');
  var moneySummary = document.getElementById('money-summary');
  var chargedNow = document.getElementById('charged-now');
  var heldUntil = document.getElementById('held-until');
  var lang = document.documentElement.lang || 'en-GB';
  var fmt = new Intl.NumberFormat(lang, { style: 'currency', currency: currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  // What split-evenly writes: the page's locale ("30,00" in French), no grouping, no sign.
  var plain = new Intl.NumberFormat(lang, { minimumFractionDigits: decimals, maximumFractionDigits: decimals, useGrouping: false });
  var scale = Math.pow(10, decimals);
  var currencySigns = new RegExp(currency + '|[€$£¥]', 'gi');

  // "30,00", "30 €", "€30", "30.5": the amounts a person types, as the server reads them.
  function toCents(text) {
    var t = String(text)
      .replace(currencySigns, '')
      .trim()
      .replace(/[\s\u00a0\u202f]/g, '')
      .replace(',', '.');
    if (t === '') return null;
    var m = /^(\d{1,13})(?:\.(\d*))?$/.exec(t);
    if (!m || (m[2] || '').length > decimals) return NaN;
    return Number(m[1]) * scale + Number(((m[2] || '') + '000000').slice(0, decimals) || '0');
  }
  function friendRows() {
    return Array.prototype.slice.call(rows.querySelectorAll('[data-friend]'));
  }
  function filled(row) {
    return row.querySelector('[name=pledger_email]').value.trim() !== '' || row.querySelector('[name=pledger_phone]').value.trim() !== '';
  }
  // Writes only when the text differs, so a live region speaks only of real changes.
  function setText(el, text) {
    if (el && el.textContent !== text) el.textContent = text;
  }
  // `strict` (on submit): a friend with an address but no share is a mistake too; while the
  // shopper is still filling the row, it is not yet one.
  function update(strict) {
    var total = 0;
    var bad = false;
    friendRows().forEach(function (row) {
      var input = row.querySelector('[name=pledger_amount]');
      var cents = toCents(input.value);
      var rowBad = (strict === true && filled(row) && cents === null) || (cents !== null && (isNaN(cents) || cents <= 0));
      if (rowBad) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      if (rowBad) bad = true;
      else if (cents) total += cents;
    });
    var mine = amount - total;
    if (mine <= 0) bad = true;
    setText(leaderShare, fmt.format(Math.max(mine, 0) / scale));
    setText(button, form.dataset.pay.replace('{amount}', fmt.format(Math.max(mine, 0) / scale)));
    if (moneySummary) {
      var held = Math.min(Math.max(total, 0), amount);
      setText(chargedNow, moneySummary.dataset.charged.replace('{amount}', fmt.format(Math.max(mine, 0) / scale)));
      heldUntil.hidden = held <= 0;
      setText(heldUntil, held > 0 ? ' · ' + moneySummary.dataset.held.replace('{amount}', fmt.format(held / scale)) : '');
    }
    if (error.hidden !== !bad) error.hidden = !bad;
    setText(error, bad ? fs.dataset.errShares : '');
    button.disabled = bad;
    return !bad;
  }
  function renumber(row, i) {
    row.querySelector('legend').textContent = fs.dataset.legend.replace(/\d+$/, String(i + 1));
  }
  function addRow() {
    var all = friendRows();
    if (all.length >= max) return;
    var copy = all[all.length - 1].cloneNode(true);
    var i = all.length;
    copy.querySelectorAll('.field-error').forEach(function (p) {
      p.parentNode.removeChild(p);
    });
    copy.querySelectorAll('input').forEach(function (input) {
      input.value = '';
      input.id = input.name + '_' + i;
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
    });
    copy.querySelectorAll('label').forEach(function (label) {
      label.htmlFor = label.htmlFor.replace(/_\d+$/, '_' + i);
    });
    renumber(copy, i);
    rows.appendChild(copy);
    copy.querySelector('input').focus();
    update(false);
  }
  function split() {
    var friends = friendRows().filter(filled);
    if (friends.length === 0) friends = friendRows();
    var each = Math.floor(amount / (friends.length + 1));
    friendRows().forEach(function (row) {
      row.querySelector('[name=pledger_amount]').value = friends.indexOf(row) >= 0 && each > 0 ? plain.format(each / scale) : '';
    });
    update(false);
  }
  addButton.addEventListener('click', addRow);
  splitButton.addEventListener('click', split);
  // Checked when a field is left with a new value, not while typing.
  fs.addEventListener('change', function () {
    update(false);
  });
  form.addEventListener('submit', function (event) {
    if (!update(true)) {
      event.preventDefault();
      error.focus();
    }
  });
  error.tabIndex = -1;
  // The first check only sets the button and the summary from what is on the page.
  update(false);
  // Shown last: the script's buttons appear once everything it does is in place.
  addButton.hidden = false;
  splitButton.hidden = false;
})();
