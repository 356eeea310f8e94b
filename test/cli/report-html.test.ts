import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { renderReport } from '../../src/cli/demo/report-html.js';
import { FAULT_ORDER } from '../../src/cli/demo/schedule.js';
import { syntheticRun } from './fixtures.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function walk(node: Node, visit: (el: Element) => void): void {
  if (isElement(node)) visit(node);
  const children = 'childNodes' in node ? node.childNodes : [];
  for (const child of children) walk(child as Node, visit);
}

function all(root: Node, tag: string): Element[] {
  const out: Element[] = [];
  walk(root, (el) => {
    if (el.tagName === tag) out.push(el);
  });
  return out;
}

function attr(el: Element, name: string): string | undefined {
  return el.attrs.find((a) => a.name === name)?.value;
}

function text(el: Node): string {
  if ('value' in el && el.nodeName === '#text') return el.value;
  return 'childNodes' in el ? el.childNodes.map((c) => text(c as Node)).join('') : '';
}

/** Parses strictly: any parse error (unclosed tags, bad nesting, stray end tags) fails the test. */
function parseStrict(html: string): DefaultTreeAdapterMap['document'] {
  const errors: string[] = [];
  const doc = parse(html, {
    onParseError: (e) => errors.push(`${e.code} at line ${e.startLine}:${e.startCol}`),
  });
  assert.deepEqual(errors, [], 'HTML parse errors');
  return doc;
}

function checkSelfContained(doc: Node): void {
  walk(doc, (el) => {
    assert.notEqual(el.tagName, 'script', 'no scripts');
    assert.notEqual(el.tagName, 'link', 'no linked resources');
    assert.notEqual(el.tagName, 'img', 'no images');
    assert.notEqual(el.tagName, 'iframe');
    for (const a of el.attrs) {
      if (['src', 'href', 'xlink:href'].includes(a.name))
        assert.fail(`external reference ${a.name}=${a.value}`);
      if (a.name === 'xmlns') continue; // a namespace name, not a fetch
      assert.ok(!/(https?:)?\/\//.test(a.value) || a.name === 'd', `URL in ${el.tagName}[${a.name}]`);
    }
  });
  for (const style of all(doc, 'style')) {
    assert.ok(!/url\(|@import/.test(text(style)), 'no external CSS resources');
  }
}

function checkCharts(section: Element, brokers: readonly string[], faultCount: number): void {
  const svgs = all(section, 'svg');
  assert.equal(svgs.length, 3, 'throughput, latency and share charts');
  for (const svg of svgs) {
    const title = all(svg, 'title')[0];
    assert.ok(title && text(title).length > 0, 'each chart has a title');
    const paths = all(svg, 'path').filter((p) => (attr(p, 'd') ?? '').length > 10);
    assert.ok(paths.length >= 2, 'each chart draws at least two series');
    for (const p of paths) assert.match(attr(p, 'd')!, /^M[\d.]+,[\d.]+( [LMZ]( ?[\d.]+,[\d.]+)?)+/);
    const windows = all(svg, 'rect').filter((r) => attr(r, 'class') === 'fault-window');
    assert.equal(windows.length, faultCount, 'one shaded rect per fault window');
    for (const w of windows) assert.ok(Number(attr(w, 'width')) > 0);
    const bandLabels = all(svg, 'text')
      .filter((t) => attr(t, 'class') === 'band-label')
      .map(text);
    assert.deepEqual(
      bandLabels.map((l) => l.split(' ')[0]),
      [...FAULT_ORDER],
    );
    const legend = all(svg, 'g').find((g) => attr(g, 'class') === 'legend');
    assert.ok(legend, 'each chart has a legend');
    const entries = all(legend, 'text').map(text);
    assert.equal(entries.length, paths.length, 'one legend entry per series');
    const axisTexts = all(svg, 'g')
      .filter((g) => (attr(g, 'class') ?? '').includes('axis'))
      .flatMap((g) => all(g, 'text'));
    assert.ok(axisTexts.length >= 6, 'axes carry tick labels');
  }
  const shareLegend = all(svgs[2]!, 'g').find((g) => attr(g, 'class') === 'legend')!;
  assert.deepEqual(all(shareLegend, 'text').map(text).sort(), [...brokers].sort());
  const areas = all(svgs[2]!, 'path').filter((p) => attr(p, 'class') === 'area');
  assert.equal(areas.length, brokers.length, 'a stacked area per broker');
}

test('the report of one run is well-formed, self-contained HTML with three charts and the tables', () => {
  const run = syntheticRun('adaptive');
  const doc = parseStrict(renderReport([run]));
  checkSelfContained(doc);
  const sections = all(doc, 'section');
  assert.equal(sections.length, 1);
  checkCharts(sections[0]!, run.brokers, FAULT_ORDER.length);
  const tables = all(sections[0]!, 'table');
  assert.equal(tables.length, 2, 'summary and per-phase tables');
  const phaseRows = all(tables[1]!, 'tr').length - 1;
  assert.equal(phaseRows, run.phases.length);
  const summaryCells = all(tables[0]!, 'td').map(text);
  const lostAt = summaryCells.indexOf('lost acknowledged messages');
  assert.equal(summaryCells[lostAt + 1], '0');
});

test('with --compare the report has a side-by-side table and charts for each strategy', () => {
  const runs = [
    syntheticRun('adaptive', 20_000, 0),
    syntheticRun('java-4.9', 20_000, 1500),
    syntheticRun('java-5', 20_000, 700),
  ];
  const doc = parseStrict(renderReport(runs));
  checkSelfContained(doc);
  const sections = all(doc, 'section');
  assert.deepEqual(
    sections.map((s) => attr(s, 'data-strategy')),
    ['adaptive', 'java-4.9', 'java-5'],
  );
  for (const s of sections) checkCharts(s, runs[0]!.brokers, FAULT_ORDER.length);
  const compare = all(doc, 'table').find((t) => attr(t, 'class') === 'compare');
  assert.ok(compare);
  const header = all(all(compare, 'thead')[0]!, 'th').map(text);
  assert.deepEqual(header, ['figure', 'adaptive', 'java-4.9', 'java-5']);
  const rows = all(compare, 'tr')
    .slice(1)
    .map((r) => all(r, 'td').map(text));
  const back = rows.find((r) => r[0] === 'traffic back after slow')!;
  assert.ok(back, 'recovery row');
  // adaptive recovers at once in this data, the java runs lag: adaptive is marked best
  const bestRow = all(compare, 'tr').find((r) => text(all(r, 'td')[0] ?? r) === 'traffic back after slow')!;
  const best = all(bestRow, 'td').findIndex((td) => attr(td, 'class') === 'best');
  assert.equal(best, 1);
});

test('text is escaped: a topic with markup does not break the document', () => {
  const run = { ...syntheticRun('adaptive', 5000), topic: '<script>alert(1)</script>&"' };
  const doc = parseStrict(renderReport([run]));
  checkSelfContained(doc);
  const code = all(doc, 'code')[0]!;
  assert.equal(text(code), '<script>alert(1)</script>&"');
});
