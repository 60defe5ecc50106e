"""Notebook display: `_repr_html_` for DataSlices (schemas and functors
included) and DataBags.

A slice shows a header (schema, shape, present count), then its items:
- rank 0: the item;
- rank 1: one row of cells;
- rank 2: one row per group (its index, then its items);
- deeper slices: the nested text.
Rows and cells are abbreviated past `MAX_ROWS` / `MAX_CELLS`, and long
values are cut. Functors show their text, and their picture when Graphviz
is installed. Bags show their statistics.
"""

import html

__all__ = ["MAX_CELLS", "MAX_ROWS", "bag_html", "slice_html"]

MAX_ROWS = 20
MAX_CELLS = 20
MAX_TEXT = 60

_STYLE = (
    "<style>.plait-ds{font-family:monospace;font-size:12px}"
    ".plait-ds table{border-collapse:collapse;margin-top:4px}"
    ".plait-ds td,.plait-ds th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
    ".plait-ds th{background:#f2f2f2;color:#555}"
    ".plait-ds .missing{color:#aaa;font-style:italic}"
    ".plait-ds .more{color:#888}</style>"
)


def _kd():
    from plait import kd

    return kd


def _cell(item):
    """One item as a table cell: its text (cut), missing items greyed."""
    if item.get_present_count().to_py() == 0:
        return '<td class="missing">None</td>'
    text = str(item)
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    return f"<td>{html.escape(text)}</td>"


def _header(ds):
    kind = "DataItem" if ds.is_item() else "DataSlice"
    shape = repr(ds.get_shape())
    present = f"{ds.get_present_count().to_py()}/{ds.get_size().to_py()}"
    return (f"<div><b>{kind}</b> &nbsp; schema: {html.escape(str(ds.get_schema()))} &nbsp; shape: {html.escape(shape)}"
            f" &nbsp; present: {present}</div>")


def _row(items, limit):
    n = items.get_size().to_py()
    cells = "".join(_cell(items.S[i]) for i in range(min(limit, n)))
    if n > limit:
        cells += f'<td class="more">… {n - limit} more</td>'
    return cells


def slice_html(ds):
    """The HTML of a DataSlice (a functor: its text and picture)."""
    kd = _kd()
    parts = [_STYLE, '<div class="plait-ds">', _header(ds)]
    rank = ds.get_ndim().to_py()
    if kd.is_fn(ds):
        parts.append(f"<pre>{html.escape(repr(ds))}</pre>")
        try:
            parts.append(kd.vis.to_svg(ds))
        except RuntimeError:
            pass  # no Graphviz: the text only
    elif rank == 0:
        parts.append(f"<table><tr>{_cell(ds)}</tr></table>")
    elif rank == 1:
        parts.append(f"<table><tr>{_row(ds, MAX_CELLS)}</tr></table>")
    elif rank == 2:
        rows = []
        groups = list(ds.L)
        for i, group in enumerate(groups[:MAX_ROWS]):
            rows.append(f"<tr><th>{i}</th>{_row(group, MAX_CELLS)}</tr>")
        if len(groups) > MAX_ROWS:
            rows.append(f'<tr><th class="more">…</th><td class="more">{len(groups) - MAX_ROWS} more rows</td></tr>')
        parts.append(f"<table>{''.join(rows)}</table>")
    else:
        parts.append(f"<pre>{html.escape(str(ds))}</pre>")
    parts.append("</div>")
    return "".join(parts)


def bag_html(bag):
    """The HTML of a DataBag: its statistics."""
    return f'{_STYLE}<div class="plait-ds"><pre>{html.escape(repr(bag))}</pre></div>'
