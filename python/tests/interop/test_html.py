"""Notebook display (issue 8): `_repr_html_` of slices, items, entities,
bags and functors — escaped, abbreviated, missing items marked. The
rendering is looked at with scripts/screenshot_html.py (headless Chromium)."""

import html.parser

from plait import kd


class _Checker(html.parser.HTMLParser):
    """Collects the cell texts and checks the tags are balanced."""

    def __init__(self):
        super().__init__()
        self.stack, self.cells, self.in_cell = [], [], False

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        self.in_cell = tag in ("td", "th")
        if self.in_cell:
            self.cells.append("")

    def handle_endtag(self, tag):
        assert self.stack.pop() == tag
        self.in_cell = False

    def handle_data(self, data):
        if self.in_cell:
            self.cells[-1] += data


def parse(text):
    checker = _Checker()
    checker.feed(text)
    assert checker.stack == []
    return checker


def test_jagged_slice():
    text = kd.slice([[1, 2], [None]])._repr_html_()
    assert "schema: INT32" in text and "present: 2/3" in text
    assert parse(text).cells == ["0", "1", "2", "1", "None"]
    assert 'class="missing"' in text


def test_items_are_escaped_and_long_rows_abbreviated():
    assert parse(kd.item("a<b")._repr_html_()).cells == ["a<b"]
    cells = parse(kd.slice(list(range(100)))._repr_html_()).cells
    assert cells[:3] == ["0", "1", "2"] and cells[-1] == "… 80 more"
    rows = parse(kd.slice([[i] for i in range(30)])._repr_html_()).cells
    assert rows[-1] == "10 more rows"


def test_entities_bags_and_functors():
    e = kd.new(name=kd.slice(["ab", "cd"]))
    assert "Entity(name=&#x27;ab&#x27;)" in e._repr_html_()
    assert "DataBag" in e.get_bag()._repr_html_()
    f = kd.fn(kd.I.x + 1)
    text = f._repr_html_()
    assert "Functor[" in text and "returns=I.x + DataItem(1, schema: INT32)" in text
