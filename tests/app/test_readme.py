"""The README stays a guide: at most 350 lines, and every relative link in it (and in the benchmark results it
links) reaches a file of the project.

The measured figures and their history live in tests/bench/RESULTS.md; the README keeps a few and links there.
Other tests hold the README's snippets to the code: the example tour (tests/app/test_tour.py), the course-page
snippets and the notebook cells (tests/browser/test_course_pages.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
RESULTS = ROOT / "tests" / "bench" / "RESULTS.md"
MAX_README_LINES = 350

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")   # [text](target) and ![alt](target)


def relative_links(markdown: str) -> list[str]:
    """The targets of the Markdown links and images outside code, without web addresses and in-page anchors.

    >>> relative_links('See [a](docs/a.md#part), ![b](img/b.png) and [c](https://example.org).  `[d](e.md)`')
    ['docs/a.md#part', 'img/b.png']
    """
    prose = INLINE_CODE.sub("", FENCE.sub("", markdown))
    return [t for t in LINK.findall(prose) if not re.match(r"^([a-z][a-z0-9+.-]*:|#)", t, re.I)]


def test_the_readme_is_at_most_350_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, (
        f"README.md has {len(lines)} lines, at most {MAX_README_LINES}: measured figures and their history "
        f"belong in tests/bench/RESULTS.md")


@pytest.mark.parametrize("doc", [README, RESULTS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file(doc):
    links = relative_links(doc.read_text(encoding="utf-8"))
    assert links, f"no relative link found in {doc.name}: the pattern no longer matches its links"
    missing = [t for t in links if not (doc.parent / t.split("#")[0].split("?")[0]).resolve().exists()]
    assert missing == [], f"{doc.relative_to(ROOT)} links to files that do not exist: {missing}"


def test_the_readme_links_the_benchmark_results():
    assert "tests/bench/RESULTS.md" in relative_links(README.read_text(encoding="utf-8"))
