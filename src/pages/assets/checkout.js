// Live help for the leader's form: shares add up, the leader's share and the Pay button follow,
// mistakes are announced. The server checks everything again; without this script the form works.
(function () {
  'use strict';
  var form = document.getElementById('checkout');
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
  var lang = document.documentElement.lang || 'en-GB';
  var fmt = new Intl.NumberFormat(lang, { style: 'currency', currency: currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  var scale = Math.pow(10, decimals);

  function toCents(text) {
    var t = String(text).trim().replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
    if (t === '') return null;
    var m = /^(\d{1,13})(?:\.(\d*))?$/.exec(t);
    if (!m || (m[2] || '').length > decimals) return NaN;
    return Number(m[1]) * scale + Number(((m[2] || '') + '000000').slice(0, decimals) || '0');
  }
  function toText(cents) {
    var whole = Math.floor(cents / scale);
    if (decimals === 0) return String(whole);
    var frac = String(cents % scale);
    while (frac.length < decimals) frac = '0' + frac;
    return whole + '.' + frac;
  }
  function friendRows() {
    return Array.prototype.slice.call(rows.querySelectorAll('[data-friend]'));
  }
  function filled(row) {
    return row.querySelector('[name=pledger_email]').value.trim() !== '' || row.querySelector('[name=pledger_phone]').value.trim() !== '';
  }
  function update() {
    var total = 0;
    var bad = false;
    friendRows().forEach(function (row) {
      var input = row.querySelector('[name=pledger_amount]');
      var cents = toCents(input.value);
      var rowBad = (filled(row) && (cents === null || !(cents > 0))) || (cents !== null && (isNaN(cents) || cents <= 0));
      input.setAttribute('aria-invalid', rowBad ? 'true' : 'false');
      if (rowBad) bad = true;
      else if (cents) total += cents;
    });
    var mine = amount - total;
    if (mine <= 0) bad = true;
    leaderShare.textContent = fmt.format(Math.max(mine, 0) / scale);
    button.textContent = form.dataset.payLabel + ' ' + fmt.format(Math.max(mine, 0) / scale);
    error.hidden = !bad;
    error.textContent = bad ? fs.dataset.errShares : '';
    button.disabled = bad;
  }
  function addRow() {
    var all = friendRows();
    if (all.length >= max) return;
    var copy = all[all.length - 1].cloneNode(true);
    var i = all.length;
    copy.querySelectorAll('input').forEach(function (input) {
      input.value = '';
      input.id = input.name + '_' + i;
      input.removeAttribute('aria-invalid');
    });
    copy.querySelectorAll('label').forEach(function (label) {
      label.htmlFor = label.htmlFor.replace(/_\d+$/, '_' + i);
    });
    rows.appendChild(copy);
    copy.querySelector('input').focus();
    update();
  }
  function split() {
    var friends = friendRows().filter(filled);
    if (friends.length === 0) friends = friendRows();
    var each = Math.floor(amount / (friends.length + 1));
    friendRows().forEach(function (row) {
      row.querySelector('[name=pledger_amount]').value = friends.indexOf(row) >= 0 && each > 0 ? toText(each) : '';
    });
    update();
  }
  addButton.hidden = false;
  splitButton.hidden = false;
  addButton.addEventListener('click', addRow);
  splitButton.addEventListener('click', split);
  fs.addEventListener('input', update);
  update();
})();
