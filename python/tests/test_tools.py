"""estimate, compile, regress, infer, aipp and the KL730 layouts from Python equal the program's
commands on the same files; their bad inputs raise npusim.Error with the program's message."""

import gc
import json
import os

import numpy as np
import pytest

import npusim
from conftest import ROOT, cli, cli_error

DIGITS = os.path.join(ROOT, "platforms", "k210", "digits")
ONNX = os.path.join(DIGITS, "digits_cnn.onnx")


def npy(path):
    return np.load(path, allow_pickle=False)


def test_infer_equals_the_program_byte_for_byte(tmp_path):
    x = npy(os.path.join(DIGITS, "test_images.npy"))[:1]
    np.save(tmp_path / "x.npy", x)
    ref = npusim.infer(ONNX, x, dump_all=True)
    rc, _, err = cli("infer", "--onnx", ONNX, "--input", str(tmp_path / "x.npy"), "--dump-all",
                     "--out", str(tmp_path / "cli"))
    assert rc == 0, err
    with open(tmp_path / "cli" / "report.json", encoding="utf-8") as f:
        rec = json.load(f)
    assert ref.names == [o["name"] for o in rec["outputs"]]
    for o, got in zip(rec["outputs"], ref.outputs):
        assert got.tobytes() == npy(tmp_path / "cli" / o["file"]).tobytes()
    assert sorted(ref.dumps) == sorted(d["file"] for d in rec["layer_dumps"])
    assert len(ref.dumps) == len(rec["layers"])
    for d in rec["layer_dumps"]:
        assert ref.dumps[d["file"]].tobytes() == npy(tmp_path / "cli" / d["file"]).tobytes()


def test_infer_with_the_wrong_shape_says_what_the_program_says(tmp_path):
    x = np.zeros((1, 1, 8, 9), np.float32)
    np.save(tmp_path / "x.npy", x)
    expected = cli_error("infer", "--onnx", ONNX, "--input", str(tmp_path / "x.npy"))
    with pytest.raises(npusim.Error) as e:
        npusim.infer(ONNX, x)
    assert str(e.value) == expected.replace(str(tmp_path / "x.npy"),
                                            "<input array float32 (1, 1, 8, 9)>")


def test_an_estimate_of_a_program_equals_the_program(tmp_path, digits):
    e = npusim.Platform().estimate(model=str(digits / "digits.kmodel"))
    rc, _, err = cli("estimate", "--model", str(digits / "digits.kmodel"), "--out",
                     str(tmp_path / "est"))
    assert rc == 0, err
    with open(tmp_path / "est" / "report.json", encoding="utf-8") as f:
        rec = json.load(f)
    assert len(e.rows) == len(rec["layers"])
    assert [r["kpu_cycles"] for r in e.rows] == [l["measures"]["kpu_cycles"]["value"]
                                                 for l in rec["layers"]]
    assert e.totals == {k: t["value"] for k, t in rec["totals"].items()}


def test_a_bad_layer_file_and_a_missing_program_are_the_programs_errors(tmp_path):
    bad = tmp_path / "layers.yaml"
    bad.write_text("layers:\n  - name: x\n    in_channels: -3\n")
    expected = cli_error("estimate", "--layers", str(bad))
    with pytest.raises(npusim.Error) as e:
        npusim.Platform().estimate(str(bad))
    assert str(e.value) == expected
    assert "layers[0].in_channels: expected a value in [1, 1024], got -3" in expected
    with pytest.raises(npusim.Error) as e:
        npusim.Platform().estimate(model=str(tmp_path / "none.kmodel"))
    assert str(e.value) == "--model: File does not exist: {}".format(tmp_path / "none.kmodel")


def test_compile_with_samples_of_the_wrong_shape_is_the_programs_error(tmp_path):
    calib = np.zeros((4, 3, 8, 8), np.float32)
    np.save(tmp_path / "c.npy", calib)
    expected = cli_error("compile", "--target", "k210", ONNX, "--calibrate",
                         str(tmp_path / "c.npy"), "-o", str(tmp_path / "m.kmodel"))
    with pytest.raises(npusim.Error) as e:
        npusim.compile(ONNX, calib, output=str(tmp_path / "p.kmodel"))
    assert str(e.value) == expected.replace(str(tmp_path / "c.npy"),
                                            "<input array float32 (4, 3, 8, 8)>")
    assert not (tmp_path / "p.kmodel").exists()


def test_assert_regress_fails_with_the_per_layer_table():
    program = npusim.compile(ONNX, npy(os.path.join(DIGITS, "calib_images.npy")))
    x = npy(os.path.join(DIGITS, "test_images.npy"))[:20]
    with pytest.raises(AssertionError) as e:
        npusim.assert_regress(ONNX, program, x, tolerances={"min_cosine": 0.999999999})
    message = str(e.value)
    assert "checks failed" in message and "cosine" in message
    r = npusim.regress(ONNX, program, x, tolerances={"min_cosine": 0.999999999})
    assert not r.passed and r.failed_checks()
    with pytest.raises(npusim.Error, match="tolerances: unknown max_err"):
        npusim.regress(ONNX, program, x, tolerances={"max_err": 1})


def test_a_program_compiled_without_an_output_goes_with_its_object():
    program = npusim.compile(ONNX, npy(os.path.join(DIGITS, "calib_images.npy")))
    path = program.path
    assert os.path.isfile(path) and program.report
    del program
    gc.collect()
    assert not os.path.exists(os.path.dirname(path))


def test_a_timed_regress_runs_the_program_and_agrees(tmp_path):
    program = npusim.compile(ONNX, npy(os.path.join(DIGITS, "calib_images.npy")),
                             output=str(tmp_path / "d.kmodel"))
    x = npy(os.path.join(DIGITS, "test_images.npy"))[:8]
    untimed = npusim.regress(ONNX, program, x)
    timed = npusim.regress(ONNX, program, x, timed=True)
    assert untimed.passed and timed.passed
    assert [c["measured"] for c in untimed.checks] == [c["measured"] for c in timed.checks[
        :len(untimed.checks)]]
    assert timed.totals.get("kpu_cycles", 0) > 0


def test_kl730_layouts_equal_the_program(tmp_path):
    x = np.full((1, 3, 2, 5), 0.3, np.float32)
    packed = npusim.layout.to_npu(x, "4W4C8B", radix=2)
    np.save(tmp_path / "x.npy", x)
    rc, _, err = cli("layout", "to-npu", "--layout", "4W4C8B", "--shape", "1,3,2,5", "--radix",
                     "2", str(tmp_path / "x.npy"), str(tmp_path / "x.bin"))
    assert rc == 0, err
    assert packed.tobytes() == (tmp_path / "x.bin").read_bytes()
    assert packed.size == 64
    back = npusim.layout.to_onnx(packed, "4W4C8B", x.shape, radix=2)
    assert back.shape == x.shape and back.ravel()[7] == 0.25
    with pytest.raises(npusim.Error, match="layout"):
        npusim.layout.to_npu(x, "4Q4C8B")


def test_aipp_equals_the_program(tmp_path):
    a = npusim.aipp()
    rc, _, err = cli("aipp", "--out", str(tmp_path / "aipp"))
    assert rc == 0, err
    assert a.outputs[0].tobytes() == npy(tmp_path / "aipp" / "output.npy").tobytes()
    with open(tmp_path / "aipp" / "report.json", encoding="utf-8") as f:
        rec = json.load(f)
    assert a.totals == {k: t["value"] for k, t in rec["totals"].items()}
    with pytest.raises(npusim.Error) as e:
        npusim.aipp(str(tmp_path / "none.png"))
    assert str(e.value) == "--input: File does not exist: {}".format(tmp_path / "none.png")


def test_missing_files_are_named_as_the_program_names_them(tmp_path):
    none = str(tmp_path / "none.npy")
    program = str(tmp_path / "none.kmodel")
    expected = cli_error("compile", "--target", "k210", ONNX, "--calibrate", none, "-o", program)
    with pytest.raises(npusim.Error) as e:
        npusim.compile(ONNX, none, output=program)
    assert str(e.value) in expected
    expected = cli_error("regress", "--onnx", ONNX, "--model", ONNX, "--inputs", none)
    with pytest.raises(npusim.Error) as e:
        npusim.regress(ONNX, ONNX, none)
    assert str(e.value) in expected


def test_a_finn_estimate_with_its_folding_equals_the_program(tmp_path):
    finn = os.path.join(ROOT, "configs", "networks", "finn")
    config = os.path.join(ROOT, "configs", "finn.yaml")
    p = npusim.Platform(config)
    e = p.estimate(model=os.path.join(finn, "tfc_digits.onnx"),
                   folding=os.path.join(finn, "folding.json"))
    rc, _, err = cli("estimate", "--platform", config, "--model",
                     os.path.join(finn, "tfc_digits.onnx"), "--folding",
                     os.path.join(finn, "folding.json"), "--out", str(tmp_path / "est"))
    assert rc == 0, err
    with open(tmp_path / "est" / "report.json", encoding="utf-8") as f:
        rec = json.load(f)
    assert e.totals == {k: t["value"] for k, t in rec["totals"].items()}
    assert e.record["tables"] == rec["tables"]
    with pytest.raises(npusim.Error, match="--folding: an option of the finn platform"):
        npusim.Platform().estimate(model=os.path.join(finn, "tfc_digits.onnx"), folding="x")
    with pytest.raises(npusim.Error, match="--speed: no platform takes this option"):
        p.estimate(model=os.path.join(finn, "tfc_digits.onnx"), speed=2)


def test_layer_data_may_hold_numpy_numbers():
    p = npusim.Platform()
    layer = {"name": "conv", "out_channels": 32, "width": 40, "height": 30, "kernel": 3}
    plain = p.estimate({"layers": [dict(layer, in_channels=[16, 32, 48])]})
    numpy = p.estimate({"layers": [dict(layer, in_channels=np.arange(16, 64, 16),
                                        out_channels=np.int64(32))]})
    assert numpy.rows == plain.rows and len(plain.rows) == 3
    with pytest.raises(npusim.Error, match="layers: <object object at"):
        p.estimate({"layers": [dict(layer, in_channels=object())]})


def test_a_dlp_sweep_from_python_data_equals_the_program(tmp_path):
    net = os.path.join(ROOT, "configs", "networks", "dlhdl_compact_cnn.yaml")
    sweep = {"sweep": {"conv_thread_number": [4, 16, 64], "processor_data_type": ["single", "int8"]},
             "budget": {"frames_per_second": 2000, "dsp": 240}}
    e = npusim.Platform("dlp_zcu102_single").estimate(model=net, sweep=sweep)
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(sweep), encoding="utf-8")
    rc, _, err = cli("estimate", "--platform", "dlp_zcu102_single", "--model", net, "--sweep",
                     str(path), "--out", str(tmp_path / "est"))
    assert rc == 0, err
    with open(tmp_path / "est" / "estimate.json", encoding="utf-8") as f:
        assert e.rows == json.load(f)
    assert len(e.rows) == 6 and any(r["pareto"] for r in e.rows)
    with pytest.raises(npusim.Error, match="give layers or sweep, not both"):
        npusim.Platform("dlp_zcu102_single").estimate(model=net, layers=sweep, sweep=sweep)


def test_a_dlp_int8_regression_with_calibration_equals_the_program(tmp_path):
    # The DL processor's ONNX model is its own reference (onnx=None); calibrate= is the
    # platform's option, passed as the program's --calibrate.
    x = npy(os.path.join(DIGITS, "test_images.npy"))[:8].astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = npusim.regress(None, ONNX, x, platform="dlp_zcu102_int8", calibrate=tmp_path / "x.npy")
    rc, _, err = cli("regress", "--platform", "dlp_zcu102_int8", "--model", ONNX, "--inputs",
                     str(tmp_path / "x.npy"), "--calibrate", str(tmp_path / "x.npy"), "--out",
                     str(tmp_path / "cli"))
    assert rc == 0, err
    with open(tmp_path / "cli" / "report.json", encoding="utf-8") as f:
        rec = json.load(f)
    assert r.passed
    assert r.record["layers"] == rec["layers"]
    with pytest.raises(npusim.Error, match="--speed: no platform takes this option"):
        npusim.regress(None, ONNX, x, platform="dlp_zcu102_int8", speed=2)
