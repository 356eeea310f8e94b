/**
 * The dashboard's only two static assets, hand-written and served from memory: no build step,
 * no copy into dist/, no CDN, so the dashboard works offline from the installed package. The
 * script only enhances server-rendered pages (live regions over Server-Sent Events, a pause
 * button, a confirmation before destructive forms); every page works without it.
 */

export const APP_JS = `'use strict';
(function () {
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var button = event.submitter;
    var question =
      (button && button.getAttribute && button.getAttribute('data-confirm')) ||
      (form && form.getAttribute && form.getAttribute('data-confirm'));
    if (question && !window.confirm(question)) event.preventDefault();
  });
  var main = document.querySelector('main[data-live]');
  if (!main || !window.EventSource) return;
  var status = document.getElementById('live-status');
  var toggle = document.getElementById('live-toggle');
  var source = null;
  function say(text) {
    if (status) status.textContent = text;
  }
  function connect() {
    source = new EventSource(main.getAttribute('data-live'));
    source.addEventListener('update', function (event) {
      var fragments = JSON.parse(event.data);
      Object.keys(fragments).forEach(function (id) {
        var region = document.getElementById(id);
        if (region) region.innerHTML = fragments[id];
      });
      document.body.setAttribute('data-updates', String(Number(document.body.getAttribute('data-updates') || 0) + 1));
      say('Live: updated at ' + new Date().toLocaleTimeString());
    });
    source.addEventListener('error', function () {
      say('Live: reconnecting…');
    });
  }
  if (toggle)
    toggle.addEventListener('click', function () {
      if (source) {
        source.close();
        source = null;
        toggle.textContent = 'Resume live updates';
        toggle.setAttribute('aria-pressed', 'true');
        say('Live: paused');
      } else {
        connect();
        toggle.textContent = 'Pause live updates';
        toggle.setAttribute('aria-pressed', 'false');
      }
    });
  connect();
})();
`;

export const APP_CSS = `:root { color-scheme: light; --fg: #1f2933; --muted: #52606d; --line: #d9e2ec; --accent: #1f5fa8; --bad: #b3261e; --ok: #1e7d32; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: var(--fg); margin: 0; background: #f5f7fa; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: 6px 10px; }
.skip:focus { left: 8px; z-index: 2; }
header { background: #102a43; color: #fff; padding: 8px 24px; display: flex; gap: 24px; align-items: center; flex-wrap: wrap; }
header .brand { margin: 0; font-weight: 700; }
header ul { list-style: none; display: flex; gap: 4px; margin: 0; padding: 0; flex-wrap: wrap; }
header a { color: #fff; padding: 6px 10px; border-radius: 4px; text-decoration: none; display: inline-block; }
header a[aria-current="page"] { background: #334e68; text-decoration: underline; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, main:focus-visible { outline: 3px solid #f0b429; outline-offset: 2px; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 24px 48px; background: #fff; min-height: 100vh; }
h1 { font-size: 24px; margin: 8px 0 8px; word-break: break-all; }
h2 { font-size: 18px; margin: 24px 0 8px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
a { color: var(--accent); }
.lead, .live { color: var(--muted); }
.live button { margin-left: 8px; }
.error { border: 2px solid var(--bad); background: #fdecea; color: #611a15; padding: 8px 12px; border-radius: 4px; margin: 8px 0; }
.notice { border: 2px solid var(--ok); background: #e3f6e8; padding: 8px 12px; border-radius: 4px; margin: 8px 0; }
.down { color: var(--bad); font-weight: 600; }
.empty { color: var(--muted); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: #f0f4f8; }
tbody th { font-weight: 500; }
.num { text-align: right; }
meter { width: 60px; }
form { margin: 8px 0; }
.field { margin: 6px 0; }
.field label { display: inline-block; min-width: 14em; }
input[type="text"], input[type="search"], input[type="number"], select { font: inherit; padding: 3px 6px; min-width: 16em; }
button { font: inherit; padding: 4px 14px; cursor: pointer; }
.forms { display: grid; grid-template-columns: repeat(auto-fit, minmax(330px, 1fr)); gap: 0 24px; }
.forms .field label { display: block; min-width: 0; }
pre.body { background: #f0f4f8; padding: 8px; overflow: auto; max-height: 480px; white-space: pre-wrap; word-break: break-all; }
ul.tabs { list-style: none; display: flex; gap: 12px; padding: 0; }
ul.tabs [aria-current] { font-weight: 700; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; word-break: break-all; }
.chart { display: block; margin: 6px 0 14px; max-width: 100%; height: auto; }
.chart text { font-size: 11px; fill: #3e4c59; }
.chart .chart-title { font-size: 14px; font-weight: 600; fill: var(--fg); }
.chart .axis-label { font-size: 12px; fill: var(--muted); }
.chart .band-label { font-size: 11px; font-weight: 700; }
.chart .grid { stroke: #e4e7eb; stroke-width: 1; }
.chart .axis-line, .chart .tick { stroke: #7b8794; stroke-width: 1; }
input[type="datetime-local"] { font: inherit; padding: 3px 6px; }
.pop { color: #7a4100; background: #fff3c4; padding: 0 6px; border-radius: 3px; }
ol.timeline { list-style: none; padding: 0; }
ol.timeline li { display: grid; grid-template-columns: minmax(16em, 24em) 1fr; gap: 12px; align-items: center; margin: 4px 0; }
.tl-track { display: block; background: #f0f4f8; height: 14px; border-radius: 3px; }
.tl-bar { display: block; height: 14px; background: var(--accent); border-radius: 3px; }
.tl-bar.down { background: var(--bad); }
@media (prefers-reduced-motion: no-preference) { .notice, .error { transition: opacity 0.2s; } }
`;
