"""Reading the page: Bokeh renders into shadow DOM, so the tests read its models."""

READY_JS = """() => { const d = window.Bokeh && Bokeh.documents && Bokeh.documents[0];
  if (!d) return false; const m = d.get_model_by_name('readouts');
  return !!(m && m.text.includes('max weight')); }"""


def wait_ready(page, timeout=20000):
    """Wait until the engine has drawn the readouts."""
    page.wait_for_function(READY_JS, timeout=timeout)


def model_prop(page, name, prop):
    return page.evaluate("([n, p]) => Bokeh.documents[0].get_model_by_name(n)[p]", [name, prop])


def source_data(page, name):
    """Columns of a named ColumnDataSource, as lists."""
    return page.evaluate("""(n) => { const s = Bokeh.documents[0].get_model_by_name(n); const out = {};
      for (const [k, v] of Object.entries(s.data)) out[k] = Array.from(v); return out; }""", name)


def readout_text(page):
    return model_prop(page, "readouts", "text")
