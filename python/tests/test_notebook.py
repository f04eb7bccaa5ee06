"""What Jupyter shows for a timed run (Result._repr_html_) in a real browser (Debian's chromium,
headless): the run's report.html inside its frame, drawn — not blank, in the page's colours.
Skipped, saying why, without chromium or Pillow."""

import shutil
import subprocess

import numpy as np
import pytest


def _screenshot(chromium, page, shot, profile):
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", "--user-data-dir=" + str(profile),
                           "--window-size=1000,800", "--screenshot=" + str(shot),
                           "file://" + str(page)],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr


def _ink_and_colour(image, box):
    """Pixels not white, and pixels in colour (channels apart by more than 60: the charts'
    series; text and rules are grey), in `box`; and the box's size."""
    region = np.asarray(image.convert("RGB").crop(box)).astype(int)
    ink = int((region != 255).any(axis=2).sum())
    colour = int((region.max(axis=2) - region.min(axis=2) > 60).sum())
    return ink, colour, region.shape[0] * region.shape[1]


def test_a_timed_run_shows_its_page_in_a_notebook(digits, platform, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("chromium is not installed (scripts/install-deps installs it)")
    image = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    r = platform.run(digits / "digits.kmodel", digits / "input.npy")
    cell = tmp_path / "cell.html"  # a notebook's output cell, as plain as one gets
    cell.write_text("<html><body style='margin:0;background:#fff'>{}</body></html>".format(
        r._repr_html_()), encoding="utf-8")
    _screenshot(chromium, cell, tmp_path / "cell.png", tmp_path / "profile")
    with image.open(tmp_path / "cell.png") as shot:
        ink, colour, size = _ink_and_colour(shot, (0, 0, 1000, 640))  # the frame's area
    assert ink > size // 50, "the frame is (almost) blank"
    # Its charts are drawn (the run's text alone, as a <pre>, has no colour pixel at all).
    assert colour > size // 100
