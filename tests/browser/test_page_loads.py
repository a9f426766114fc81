"""The page loads, served and offline, with the worked example's readouts and nothing from outside."""

from tests.browser.pageutil import readout_text, wait_ready


def _check_worked_example(page):
    text = readout_text(page)
    for figure in ("0.163", "3.35 bits", "10.2", "\u22120.30", "\u22120.43"):
        assert figure in text, (figure, text)


def test_served_page_opens_on_the_worked_example(served_app, watch):
    watch.page.goto(served_app)
    wait_ready(watch.page)
    _check_worked_example(watch.page)
    origin = served_app.rsplit("/", 1)[0]
    assert watch.outside_requests([origin, "data:", "blob:"]) == []
    assert watch.console_errors() == []


def test_offline_file_opens_on_the_worked_example(static_file, watch):
    watch.page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:", "blob:"))
                     else route.abort())
    watch.page.goto(static_file.as_uri())
    wait_ready(watch.page)
    _check_worked_example(watch.page)
    assert watch.outside_requests(["file:", "data:", "blob:"]) == []
    assert watch.console_errors() == []
