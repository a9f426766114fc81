"""The browser's reader of an instructor's data (app/ui/userdata.js) against its Python twin (app/userdata/).

app/ui/userdata.js is loaded into a blank page with app.userdata.config(), and every input of
tests/core/test_userdata.py's corpus, plus seeded random texts, goes through both: the numbers must be
equal and the sentences equal character for character.  Links made by one side must open on the other.
A file over the limit must be refused before anything reads it.  Each batch is one ``page.evaluate``.  The
texts, numbers, sizes and x's, and their comparisons, are tests/parity/userdata.py's, which tests/js runs too.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from app import userdata as u
from tests.browser.pageutil import harness_page
from tests.core.test_userdata import EXAMPLE, FRAGMENTS_REFUSED, LONG_HEAD, LONG_ROW_JS, long_row
from tests.parity import library_js
from tests.parity import userdata as pu
from tests.parity.userdata import py_parse

HARNESS = r"""
window.ud = (function (U) {
  const parse = (cases) => cases.map(([text, opts]) => U.parse(text, opts, CFG));
  return {
    parse: (cases) => ({ results: parse(cases), body: document.body.innerHTML, images: document.images.length }),
    numbers: (vs) => vs.map((v) => U.numberText(v)),
    sizes: (ns) => ns.map((n) => U.sizeText(n)),
    scale: (cases) => cases.map((c) => {
      const s = U.scaleFor(c.x, CFG);
      return { s, page: c.x.map((v) => U.fromUnits(s, v)), back: c.q.map((v) => U.toUnits(s, v)),
               h: [U.hFromUnits(s, c.h), U.hToUnits(s, c.h)] };
    }),
    encode: (datas) => Promise.all(datas.map((d) => U.encodeFragment(d, CFG))),
    decode: (frags) => Promise.all(frags.map((f) => U.decodeFragment(f, CFG))),
    read: (files) => Promise.all(files.map((f) =>
      U.readFile(new File([new Uint8Array(f.bytes)], f.name, { type: f.type }), CFG))),
    // a 50 MB file whose readers throw: checkFile and readFile must refuse it from its size alone
    big: async () => {
      const calls = [];
      const reader = (name) => () => { calls.push(name); throw new Error("the file was read"); };
      const fake = { size: 50000000, type: "text/csv", name: "big.csv" };
      for (const name of ["text", "arrayBuffer", "stream", "slice"]) fake[name] = reader(name);
      const real = new File([new Uint8Array(50000000)], "big.csv", { type: "text/csv" });
      for (const name of ["text", "arrayBuffer", "stream", "slice"]) real[name] = reader("real " + name);
      return { fake: U.checkFile(fake, CFG), fakeRead: await U.readFile(fake, CFG),
               real: U.checkFile(real, CFG), realRead: await U.readFile(real, CFG), calls };
    },
    // texts made here (a 50 MB paste costs nothing to send): [head, row, times] -> what parse and columnNames say
    bigTexts: (specs) => specs.map(([head, row, times]) => {
      const text = head + row.repeat(times);
      return { got: U.parse(text, {}, CFG), columns: U.columnNames(text, CFG) };
    }),
    // the rows of tests/core/test_userdata.py long_row, as a file of n rows, read and parsed
    longFile: async ([head, n]) => {
      const rows = [head], row = LONG_ROW;
      for (let i = 0; i < n; i++) rows.push(row(i));
      const file = new File(rows, "long.csv", { type: "text/csv" }), text = await U.readFile(file, CFG);
      return { size: file.size, got: typeof text === "string" ? U.parse(text, {}, CFG) : text };
    },
  };
})(AttnUserData);
"""


@pytest.fixture(scope="module")
def js(browser):
    """A blank page holding ui/userwords.js, ui/userparse.js, ui/userdata.js and the config; js(name, cases) runs
    one batch."""
    source = library_js(("userwords.js", "userparse.js", "userdata.js"))
    harness = HARNESS.replace("LONG_ROW", LONG_ROW_JS)
    with harness_page(browser, f"{source}\nconst CFG = {json.dumps(u.config())};\n{harness}", "ud") as run:
        yield run


def test_parse_matches_python_on_the_corpus_and_random_texts(js):
    """The corpus (its refused texts first), 600 seeded random texts, a text cut to 2000 points, decimal commas
    and texts whose separator decides what is read."""
    cases, _ = pu.parse_cases()
    out = js("parse", cases)
    assert out["body"] == "" and out["images"] == 0        # nothing from the text became markup
    pu.assert_parse(out["results"])


def _datasets():
    rng = np.random.default_rng(11)
    year = u.read_csv_file(EXAMPLE)
    idx = np.round(np.linspace(0, 364, 200)).astype(int)
    return [
        u.from_arrays(year.x[idx], year.y[idx], "day", "temp_c"),
        year,
        u.from_arrays([1, 2, 1], [0.1 + 0.2, -1e15, 5e-324], "t\u00e9mp\u00e9rature \u2603", "<i>y</i>"),
        u.from_arrays(rng.uniform(0, 6, 60), rng.normal(size=60) * 10 ** rng.uniform(-9, 9, 60)),
    ]


def test_links_made_by_python_open_in_the_browser_and_back(js):
    datas = _datasets()
    made_here = [u.encode_fragment(d) for d in datas]
    opened = js("decode", made_here)
    made_there = js("encode", [{"x": d.x.tolist(), "y": d.y.tolist(), "xName": d.x_name, "yName": d.y_name}
                               for d in datas])
    for d, there, link in zip(datas, opened, made_there):
        assert there["x"] == d.x.tolist() and there["y"] == d.y.tolist()
        assert (there["xName"], there["yName"], there["notices"]) == (d.x_name, d.y_name, list(u.decode_fragment(
            u.encode_fragment(d)).notices))
        assert isinstance(link, str) and link.startswith("data1.") and len(link) <= u.MAX_FRAGMENT_CHARS
        back = u.decode_fragment("#" + link)
        assert np.array_equal(back.x, d.x) and np.array_equal(back.y, d.y)
        assert (back.x_name, back.y_name) == (d.x_name, d.y_name)
    # about 200 points of a year of temperatures fit in a link made by either side
    print(f"\n200 days of temperatures: a fragment of {len(made_here[0])} characters from Python, "
          f"{len(made_there[0])} from the browser; the whole year: {len(made_here[1])} and {len(made_there[1])}")


def test_what_a_link_cannot_carry_is_said_alike(js):
    rng = np.random.default_rng(0)
    d = u.from_arrays(np.sort(rng.uniform(0, 6, 400)), rng.normal(size=400))
    got = js("encode", [{"x": d.x.tolist(), "y": d.y.tolist(), "xName": "x", "yName": "y"}])
    with pytest.raises(ValueError) as e:
        u.encode_fragment(d)
    assert got == [{"error": str(e.value)}]


def test_damaged_and_foreign_links_are_said_alike(js):
    got = js("decode", [f for f, _ in FRAGMENTS_REFUSED])
    assert got == [{"error": s} for _, s in FRAGMENTS_REFUSED]


def test_files_are_read_as_python_reads_them(js):
    files = [
        ("t.csv", "text/csv", "\ufeffday;temp_\u00b0C\r\n1;3,5\r\n2;4\r\n".encode("utf-8")),
        ("t.txt", "text/plain", b"\xff\xfe" + "day\ttemp\n1\t3.5\n2\t4\n".encode("utf-16-le")),
        ("t.txt", "", b"\xfe\xff" + "day\ttemp\n1\t3.5\n2\t4\n".encode("utf-16-be")),
        ("t.csv", "application/vnd.ms-excel", b"x,y\n1,2\n2,3\n"),
        ("t.csv", "text/csv", b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256))),
        ("t.csv", "text/csv", b"day,temp\n" + b"\xe9" * 11 + b"\n1,2\n2,3\n"),
        ("t.csv", "text/csv", b"day,temp\n" + b"\xe9" * 3 + b"\n1,2\n2,3\n"),
        ("temps.xlsx", "", b"x,y\n1,2\n"),
        ("t.bin", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", b"x"),
        ("empty.csv", "text/csv", b""),
    ]
    got = js("read", [{"name": n, "type": t, "bytes": list(b)} for n, t, b in files])
    for (name, type_, data), there in zip(files, got):
        try:
            u.check_file(len(data), name, type_)
            here = u.decode_bytes(data)
        except ValueError as e:
            here = {"error": str(e)}
        assert there == here, name
    assert got[0].startswith("\ufeffday;") and got[4] == {"error": u.SAY.binary}


def test_a_big_file_is_refused_before_anything_reads_it(js):
    got = js("big")
    sentence = "This file is 50 MB; the page reads files up to 16 MB."
    with pytest.raises(ValueError, match=sentence):
        u.check_file(50_000_000, "big.csv", "text/csv")
    assert got == {"fake": {"error": sentence}, "fakeRead": {"error": sentence},
                   "real": {"error": sentence}, "realRead": {"error": sentence}, "calls": []}


def test_a_text_over_the_limit_is_refused_alike_before_it_is_parsed(js):
    specs = [("x,y\n", "1,2\n", 12_499_999),            # a 50 MB paste
             ("x,y\n", "\u20ac,\u00e9\n", 2_000_001),          # 7 bytes a row in UTF-8 (4 UTF-16 units): 14 MB, taken
             ("x,y\n", "1,\U0001f600\n", 2_700_000),          # a 4-byte character (2 UTF-16 units) a row: 18.9 MB
             ("x,y\n1,2\n2,3\n", " ", 16_000_000 - 12)]      # exactly 16 MB: taken
    got = js("bigTexts", specs)
    for (head, row, times), there in zip(specs, got):
        assert there["got"] == py_parse(head + row * times, {}), (head, row[:8], times)
    assert got[0]["got"] == {"error": "This text is 50 MB; the page reads texts up to 16 MB."}
    assert got[2]["got"] == {"error": u.SAY.text_too_big(4 + 7 * 2_700_000, u.MAX_INPUT_BYTES)}
    assert got[3]["got"]["x"] == [1, 2] and "error" in got[1]["got"]   # (a euro sign is not a number)
    assert got[1]["got"]["error"].startswith("Line 2:")
    assert got[0]["columns"] == [] and got[2]["columns"] == []      # nor are its columns looked for


def test_a_file_of_100_000_rows_is_read_and_cut_alike(js, tmp_path):
    there = js("longFile", [LONG_HEAD, 100_000])
    p = tmp_path / "long.csv"
    p.write_text(LONG_HEAD + "".join(long_row(i) for i in range(100_000)), encoding="utf-8", newline="")
    d = u.read_csv_file(p)
    assert there["size"] == p.stat().st_size > 5 * 1024 * 1024
    assert there["got"] == {"x": d.x.tolist(), "y": d.y.tolist(), "xName": d.x_name, "yName": d.y_name,
                            "notices": list(d.notices)}
    assert d.notices[-1] == "There are 100000 rows of data; the page keeps the first 2000 points."
