"""Platform.run against the npusim program: the same bytes and cycles, the same errors."""

import gc
import html
import io
import json
import os

import numpy as np
import pytest

import npusim
from npusim._platform import _npy

from conftest import cli, cli_error


def test_version_is_the_programs():
    rc, out, _ = cli("--version")
    assert rc == 0
    assert npusim.__version__ in out


def test_functional_run_in_process_equals_the_programs(digits, platform, tmp_path):
    x = np.load(digits / "input.npy")
    r = platform.run(digits / "digits.kmodel", x, timed=False)
    rc, _, err = cli("run", "--functional", "--model", str(digits / "digits.kmodel"), "--input",
                     str(digits / "input.npy"), "--out", str(tmp_path / "f"))
    assert rc == 0, err
    assert len(r.outputs) == 1
    assert r.outputs[0].tobytes() == np.load(tmp_path / "f" / "output_0.npy").tobytes()
    assert r.outputs[0].dtype == np.float32 and r.outputs[0].shape == (1, 1, 1, 10)
    cli_record = json.loads((tmp_path / "f" / "report.json").read_text())
    assert r.record["layers"] == cli_record["layers"]
    assert r.totals["macs"] == 100352


def test_timed_run_equals_the_programs_outputs_and_cycles(digits, platform):
    r = platform.run(digits / "digits.kmodel", np.load(digits / "input.npy"))
    cli_record = json.loads((digits / "report.json").read_text())
    assert r.outputs[0].tobytes() == np.load(digits / "output_0.npy").tobytes()
    assert r.totals["kpu_cycles"] == cli_record["totals"]["kpu_cycles"]["value"] == 12054
    assert [l["kpu_cycles"] for l in r.layers] == [
        l["measures"]["kpu_cycles"]["value"] for l in cli_record["layers"]]
    assert r.layers[0]["KPU_ps"] == cli_record["layers"][0]["engines"][0]["ps"]


def test_a_timed_run_keeps_its_folder_when_given_one(digits, platform, tmp_path):
    r = platform.run(digits / "digits.kmodel", digits / "input.npy", out=tmp_path / "t",
                     trace=True)
    assert r.report_html and r.trace_path
    assert r.report_html == str(tmp_path / "t" / "report.html")
    shown = r._repr_html_()
    assert shown.startswith('<iframe srcdoc="') and "<svg" not in shown  # escaped, in its frame
    page = html.unescape(shown[len('<iframe srcdoc="'):shown.index('" style=')])
    assert page == (tmp_path / "t" / "report.html").read_text() and "<svg" in page


def test_a_timed_runs_page_lives_as_long_as_its_result(digits, platform):
    r = platform.run(digits / "digits.kmodel", digits / "input.npy", trace=True)
    page, folder = r.report_html, r.out_dir
    assert page and os.path.isfile(page) and os.path.isfile(r.trace_path)
    assert "<svg" in html.unescape(r._repr_html_())
    del r
    gc.collect()
    assert not os.path.exists(folder)


def test_outputs_are_the_runs_memory_not_a_copy(digits, platform):
    r = platform.run(digits / "digits.kmodel", digits / "input.npy", timed=False, dump_all=True)
    assert r.dumps
    for arr, name in [(r.outputs[0], r.record["outputs"][0]["file"])] + [
            (a, n) for n, a in r.dumps.items()]:
        assert np.shares_memory(arr, r.files[name]), name
        assert arr.flags.writeable
    out = r.outputs[0]
    del r
    gc.collect()
    assert out.tobytes() == np.load(digits / "output_0.npy").tobytes()  # still its own memory


@pytest.mark.parametrize("arr", [
    np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.asfortranarray(
        np.arange(12, dtype=">i2").reshape(3, 4)), np.float64(2.5), np.zeros((0, 3), np.uint8),
    np.arange(5, dtype=np.int64)[::2], np.array([1 + 2j], np.complex64)])
@pytest.mark.parametrize("version", [(1, 0), (2, 0)])
def test_an_npy_read_in_place_equals_numpys_reading(arr, version):
    f = io.BytesIO()
    np.lib.format.write_array(f, np.asanyarray(arr), version=version)
    data = np.frombuffer(f.getvalue(), np.uint8).copy()
    got = _npy(data)
    want = np.load(io.BytesIO(f.getvalue()))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
    if want.size:
        assert np.shares_memory(got, data)


def test_an_array_of_objects_is_an_error_naming_it(digits, platform):
    with pytest.raises(npusim.Error, match=r"<input array object \(1,\)>: an array of Python "
                                           r"objects is no tensor"):
        platform.run(digits / "digits.kmodel", np.array([{}], dtype=object), timed=False)


def test_a_cut_npy_is_an_error_not_a_short_array():
    f = io.BytesIO()
    np.save(f, np.arange(10, dtype=np.int32))
    with pytest.raises(npusim.Error, match="shorter than its header"):
        _npy(np.frombuffer(f.getvalue()[:-4], np.uint8))


def test_settings_are_set_options(digits):
    slow = npusim.Platform(kpu__clock_hz="200MHz")
    r = slow.run(digits / "digits.kmodel", np.load(digits / "input.npy"))
    assert r.record["platform"]["parameters"]["kpu_clock_hz"]["value"] == 200e6


@pytest.mark.parametrize("bad", ["dtype", "shape", "flat"])
def test_a_wrong_input_is_the_programs_error(digits, platform, tmp_path, bad):
    """A wrong type, size or shape; a flattened image has the size but not the shape (it ran)."""
    x = np.load(digits / "input.npy")
    x = {"dtype": x.astype(np.float32), "shape": x[:, :, :8, :], "flat": x.reshape(-1)}[bad]
    np.save(tmp_path / "x.npy", x)
    want = cli_error("run", "--functional", "--model", str(digits / "digits.kmodel"), "--input",
                     str(tmp_path / "x.npy"))
    for timed in (False, True):
        with pytest.raises(npusim.Error) as e:
            platform.run(digits / "digits.kmodel", tmp_path / "x.npy", timed=timed)
        assert str(e.value) == want
    with pytest.raises(npusim.Error) as e:  # an array: the message names it instead of a file
        platform.run(digits / "digits.kmodel", x, timed=False)
    assert str(e.value) == want.replace(str(tmp_path / "x.npy"), "<input array {} {}>".format(
        x.dtype, tuple(x.shape)))


def test_missing_and_malformed_files_are_the_programs_errors(digits, platform, tmp_path):
    bad = tmp_path / "bad.kmodel"
    bad.write_bytes(b"\x03\x00\x00\x00garbage")
    for model in (tmp_path / "none.kmodel", bad):
        want = cli_error("run", "--functional", "--model", str(model), "--input",
                         str(digits / "input.npy"))
        with pytest.raises(npusim.Error) as e:
            platform.run(model, digits / "input.npy", timed=False)
        assert str(e.value) == want.replace(" (see 'npusim --help')", "")


def test_a_bad_platform_file_is_the_programs_error(tmp_path):
    bad = tmp_path / "p.yaml"
    bad.write_text("kind: k210\nkpu: [unclosed\n")
    want = cli_error("info", "--platform", str(bad))
    with pytest.raises(npusim.Error) as e:
        npusim.Platform(str(bad))
    assert str(e.value) == want
