"""docs/python.md's three worked examples run as written, and what they compute equals what the
npusim program gives for the same files (outputs byte for byte, cycles and checks equal)."""

import json
import os
import re
import shutil

import numpy as np
import pytest

from conftest import ROOT, cli

DIGITS = os.path.join(ROOT, "platforms", "k210", "digits")


def example(n):
    with open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("### {}.".format(n)):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def run_example(n, folder, capsys):
    """Runs example n with `folder` as the current directory (platforms/ linked into it); its
    globals and what it printed."""
    os.symlink(os.path.join(ROOT, "platforms"), os.path.join(folder, "platforms"))
    here = os.getcwd()
    os.chdir(folder)
    try:
        scope = {"__name__": "example{}".format(n)}
        exec(compile(example(n), "docs/python.md example {}".format(n), "exec"), scope)  # noqa: S102
    finally:
        os.chdir(here)
    return scope, capsys.readouterr().out


def test_example_1_a_kmodel_on_an_image_with_its_layer_times(tmp_path, digits, capsys):
    pytest.importorskip("matplotlib")
    shutil.copytree(digits, tmp_path / "out")
    scope, printed = run_example(1, tmp_path, capsys)
    r = scope["r"]
    assert (tmp_path / "ex1" / "layers.png").stat().st_size > 1000
    assert (tmp_path / "ex1" / "report.html").is_file()
    # The program on the same files: the same output bytes, the same cycles per layer.
    rc, _, err = cli("run", "--model", str(tmp_path / "out" / "digits.kmodel"), "--input",
                     str(tmp_path / "out" / "input.npy"), "--out", str(tmp_path / "cli"))
    assert rc == 0, err
    assert r.outputs[0].tobytes() == np.load(tmp_path / "cli" / "output_0.npy").tobytes()
    with open(tmp_path / "cli" / "report.json", encoding="utf-8") as f:
        rec = json.load(f)
    assert [(l["start_ps"], l["end_ps"]) for l in r.layers] == [(l["start_ps"], l["end_ps"])
                                                                for l in rec["layers"]]
    assert scope["times"] == [(l["end_ps"] - l["start_ps"]) / 1e6 for l in rec["layers"]]
    assert r.totals["kpu_cycles"] == rec["totals"]["kpu_cycles"]["value"]
    assert "KPU cycles {:.0f}".format(rec["totals"]["kpu_cycles"]["value"]) in printed


def test_example_2_compile_and_regress_on_a_numpy_dataset(tmp_path, capsys):
    scope, printed = run_example(2, tmp_path, capsys)
    r = scope["r"]
    assert printed.startswith("True ")
    assert r.passed and len(r.layers) == 5
    # The program: the same kmodel bytes, the same checks and table.
    km = str(tmp_path / "cli.kmodel")
    rc, _, err = cli("compile", "--target", "k210", os.path.join(DIGITS, "digits_cnn.onnx"),
                     "--calibrate", os.path.join(DIGITS, "calib_images.npy"), "-o", km)
    assert rc == 0, err
    with open(km, "rb") as a, open(tmp_path / "ex2.kmodel", "rb") as b:
        assert a.read() == b.read()
    rc, out, err = cli("regress", "--onnx", os.path.join(DIGITS, "digits_cnn.onnx"), "--model",
                       km, "--inputs", os.path.join(DIGITS, "test_images.npy"), "--labels",
                       os.path.join(DIGITS, "test_labels.npy"), "--out", str(tmp_path / "reg"))
    assert rc == 0, err
    with open(tmp_path / "reg" / "report.json", encoding="utf-8") as f:
        rec = json.load(f)
    assert r.checks == rec["checks"]
    assert "top-1 agreement 297/297 (100.00 %) ok" in r.text
    assert r.text.split("\n", 1)[1] in out  # the table (the first line names the files)


def test_example_3_a_clock_and_layer_sweep_into_a_dataframe(tmp_path, capsys):
    pytest.importorskip("pandas")
    scope, printed = run_example(3, tmp_path, capsys)
    df = scope["df"]
    assert len(df) == 3 * 3 * 2
    layers = tmp_path / "layers.yaml"
    layers.write_text(json.dumps(scope["layers"]))
    for mhz in (200, 400, 600):
        rc, _, err = cli("estimate", "--layers", str(layers), "--set",
                         "kpu.clock_hz={}MHz".format(mhz), "--out", str(tmp_path / str(mhz)))
        assert rc == 0, err
        with open(tmp_path / str(mhz) / "estimate.json", encoding="utf-8") as f:
            rows = json.load(f)
        got = df[df.clock_mhz == mhz].drop(columns="clock_mhz").to_dict("records")
        assert [r["total_cycles"] for r in got] == [r["total_cycles"] for r in rows]
        assert [r["time_us"] for r in got] == [r["time_us"] for r in rows]
    # A faster KPU clock: less time for every configuration.
    fast = df[df.clock_mhz == 600].time_us.to_numpy()
    slow = df[df.clock_mhz == 200].time_us.to_numpy()
    assert (slow > fast).all()
    assert "clock_mhz" in printed
