"""Platform.run against the npusim program: the same bytes and cycles, the same errors."""

import json

import numpy as np
import pytest

import npusim

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
    assert "<svg" in r._repr_html_()


def test_settings_are_set_options(digits):
    slow = npusim.Platform(kpu__clock_hz="200MHz")
    r = slow.run(digits / "digits.kmodel", np.load(digits / "input.npy"))
    assert r.record["platform"]["parameters"]["kpu_clock_hz"]["value"] == 200e6


@pytest.mark.parametrize("bad", ["dtype", "shape"])
def test_a_wrong_input_is_the_programs_error(digits, platform, tmp_path, bad):
    x = np.load(digits / "input.npy")
    x = x.astype(np.float32) if bad == "dtype" else x[:, :, :8, :]
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
