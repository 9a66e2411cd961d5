/**
 * @module The web view's one script (docs/web.md, "Keyboard"), served as a file: pages work without it; with it,
 * `/` focuses the search box, `j`/`k` move through results, `o` (or Enter) opens the current one, and the search
 * page searches as you type. No framework, no inline code, nothing from elsewhere.
 */
export const ENHANCE_JS = String.raw`'use strict';
(function () {
  var hits = function () { return Array.prototype.slice.call(document.querySelectorAll('.hit')); };
  var current = -1;
  function select(i) {
    var list = hits();
    if (list.length === 0) return;
    current = Math.max(0, Math.min(list.length - 1, i));
    list.forEach(function (h, n) { h.classList.toggle('current', n === current); });
    var link = list[current].querySelector('a');
    if (link) link.focus();
  }
  function typing(el) {
    return el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
  }
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Escape' && typing(document.activeElement)) { document.activeElement.blur(); return; }
    if (typing(document.activeElement)) return;
    var box = document.getElementById('q');
    if (e.key === '/' && box) { e.preventDefault(); box.focus(); box.select(); }
    else if (e.key === 'j') { e.preventDefault(); select(current + 1); }
    else if (e.key === 'k') { e.preventDefault(); select(current - 1); }
    else if (e.key === 'o' && current >= 0) {
      var link = hits()[current].querySelector('a');
      if (link) { e.preventDefault(); window.location.href = link.href; }
    }
  });
  var form = document.querySelector('form.search');
  var box = document.getElementById('q');
  var results = document.getElementById('results');
  if (!form || !box || !results || !window.fetch || !window.DOMParser) return;
  var timer = null;
  var asked = 0;
  box.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var url = form.getAttribute('action') + '?' + new URLSearchParams(new FormData(form)).toString();
      var mine = ++asked;
      fetch(url, {credentials: 'same-origin'}).then(function (r) {
        return r.ok ? r.text() : null;
      }).then(function (text) {
        if (text === null || mine !== asked) return;
        var doc = new DOMParser().parseFromString(text, 'text/html');
        var fresh = doc.getElementById('results');
        if (!fresh) return;
        results.replaceWith(fresh);
        results = fresh;
        current = -1;
        history.replaceState(null, '', url);
      }).catch(function () {});
    }, 200);
  });
})();
`
