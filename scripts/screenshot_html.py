"""Renders the notebook HTML of sample values (`_repr_html_`) in headless
Chromium and saves a screenshot, to look at how plait displays in a
notebook: `python scripts/screenshot_html.py out.png` (needs the Debian
package `chromium`)."""

import os
import shutil
import subprocess
import sys
import tempfile

from plait import kd


def samples():
    @kd.trace_as_fn()
    def inner(x):
        return x + 1

    def outer(a, b, c):
        return inner(kd.with_name(a + b, "sum_ab")) * c

    return [
        ("a jagged slice", kd.slice([[1, 2, None], [4], [5, 6, 7, 8]])),
        ("entities", kd.new(name=kd.slice(["ab", "cd"]), score=kd.slice([1.5, None]))),
        ("a long row", kd.slice(list(range(100)))),
        ("a bag", kd.new(a=kd.slice([1, 2])).get_bag()),
        ("a functor", kd.fn(outer)),
    ]


def page():
    body = "".join(f"<h3>{title}</h3>{value._repr_html_()}" for title, value in samples())
    return f"<html><body style='font-family:sans-serif'>{body}</body></html>"


def main(out):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("chromium is not installed (apt install chromium)")
    with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as f:
        f.write(page())
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={os.path.abspath(out)}",
                    "--window-size=1000,1400", f"file://{f.name}"], check=True, capture_output=True)
    print(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "plait_html.png")
