"""Untrusted files through the package: damaged programs, models and layer files give
npusim.Error or a result, never a crash of the interpreter or another exception; names that are
not UTF-8 reach Python as text (U+FFFD for each bad byte), as the program writes them."""

import ast
import json
import os
import subprocess
import sys
import xml.dom.minidom

import numpy as np
import pytest

import npusim

from conftest import ROOT, cli, cli_error

DIGITS = os.path.join(ROOT, "platforms", "k210", "digits")
ONNX = os.path.join(DIGITS, "digits_cnn.onnx")
CALIB = os.path.join(DIGITS, "calib_images.npy")
NAME = b"/features/features.3/MaxPool_output_0"
NOT_UTF8 = b"/features/f\xffatures.3/MaxPool_output_0"  # the same length: the protobuf stays whole
SHOWN = "/features/f\ufffdatures.3/MaxPool_output_0"

# What each child counts: a result, npusim.Error, or anything else by its type and message.
ATTEMPT = r'''
import collections
import npusim
seen = collections.Counter()
def attempt(call):
    try:
        call()
        seen["result"] += 1
    except npusim.Error:
        seen["npusim.Error"] += 1
    except Exception as e:
        seen["{}: {}".format(type(e).__name__, str(e)[:120])] += 1
'''

CHILD = ATTEMPT + r'''
import random, sys
import numpy as np
kind, src, folder, arg = sys.argv[1:5]
data = open(src, "rb").read()
rng = random.Random(7)
cases = [data[:len(data) * i // 60] for i in range(60)]
for _ in range(int(sys.argv[5])):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    cases.append(bytes(b))
p = npusim.Platform()
calls = {"kmodel": lambda path: p.run(path, np.load(arg), timed=False),
         "infer": lambda path: npusim.infer(path, np.load(arg)),
         "compile": lambda path: npusim.compile(path, arg, output=path + ".kmodel"),
         "estimate": p.estimate}
for i, case in enumerate(cases):
    path = "{}/case{}".format(folder, i)
    open(path, "wb").write(case)
    attempt(lambda: calls[kind](path))
print(dict(seen))
'''


def _outcomes(code, *args):
    """Runs `code` in a Python of its own (a crash there is its exit code, not the end of
    pytest); what it counted, which must be results and npusim.Error only."""
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert set(seen) <= {"result", "npusim.Error"}, seen
    return seen


@pytest.mark.parametrize("kind,src,arg,flips", [
    ("kmodel", "digits.kmodel", "input.npy", 300),
    ("infer", ONNX, "x16", 300),
    ("compile", ONNX, CALIB, 60),
    ("estimate", "layers.yaml", "", 120),
])
def test_damaged_files_give_errors_never_a_crash(kind, src, arg, flips, digits, tmp_path):
    if src == "digits.kmodel":
        src, arg = str(digits / "digits.kmodel"), str(digits / "input.npy")
    if arg == "x16":
        arg = str(tmp_path / "x16.npy")
        np.save(arg, np.random.RandomState(0).rand(1, 1, 16, 16).astype(np.float32))
    if src == "layers.yaml":
        src = str(tmp_path / "layers.yaml")
        with open(src, "w", encoding="utf-8") as f:
            f.write("layers:\n  - name: conv\n    in_channels: [16, 32]\n    out_channels: 32\n"
                    "    width: 40\n    height: 30\n    kernel: 3\n")
    seen = _outcomes(CHILD, kind, src, tmp_path, arg, flips)
    assert seen.get("npusim.Error", 0) > 0 and sum(seen.values()) == 60 + flips, seen


def test_names_that_are_not_utf8_reach_python_as_text(tmp_path):
    with open(ONNX, "rb") as f:
        model = f.read()
    assert NAME in model
    bad = tmp_path / "m.onnx"
    bad.write_bytes(model.replace(NAME, NOT_UTF8))
    prog = npusim.compile(bad, CALIB, output=tmp_path / "m.kmodel")
    rc, out, err = cli("compile", "--target", "k210", str(bad), "--calibrate", CALIB, "-o",
                       str(tmp_path / "cli.kmodel"))
    assert rc == 0, err
    assert (tmp_path / "m.kmodel").read_bytes() == (tmp_path / "cli.kmodel").read_bytes()
    with open(tmp_path / "cli.kmodel.json", encoding="utf-8") as f:  # valid UTF-8 JSON
        report = json.load(f)
    assert SHOWN in json.dumps(report, ensure_ascii=False)
    assert SHOWN in prog.text and prog.report == report  # the text, as the program prints it
    ref = npusim.infer(bad, np.load(CALIB)[:1], dump_all=True)
    assert SHOWN in json.dumps(ref.record, ensure_ascii=False)
    # A message that names the tensor (the program prints its bytes), decoded the same way.
    cut = tmp_path / "cut.onnx"
    at = model.rindex(NAME)  # its reader reads a tensor no node writes
    cut.write_bytes(model[:at] + NOT_UTF8 + model[at + len(NAME):])
    with pytest.raises(npusim.Error) as e:
        npusim.infer(cut, np.load(CALIB)[:1])
    assert "\ufffd" in str(e.value), str(e.value)


def test_a_regress_of_names_that_are_not_utf8_writes_text_files(tmp_path):
    bad = tmp_path / "m.onnx"
    with open(ONNX, "rb") as f:
        bad.write_bytes(f.read().replace(NAME, NOT_UTF8))
    prog = npusim.compile(bad, CALIB, output=tmp_path / "m.kmodel")
    r = npusim.regress(bad, prog, CALIB)
    assert r.passed and any(SHOWN in str(layer) for layer in r.layers)
    rc, _, err = cli("regress", "--onnx", str(bad), "--model", prog.path, "--inputs", CALIB,
                     "--out", str(tmp_path / "reg"))
    assert rc == 0, err
    xml.dom.minidom.parse(str(tmp_path / "reg" / "junit.xml"))
    for name in ("report.json", "report.html", "layers.csv", "report.txt"):
        text = (tmp_path / "reg" / name).read_text(encoding="utf-8")  # strict: text throughout
        assert SHOWN in text, name


def test_a_compile_report_of_another_model_is_one_error(tmp_path):
    other = tmp_path / "other.onnx"
    with open(ONNX, "rb") as f:
        other.write_bytes(f.read().replace(NAME, NAME.replace(b"features.3", b"features.X")))
    prog = npusim.compile(other, CALIB, output=tmp_path / "other.kmodel")
    want = cli_error("regress", "--onnx", ONNX, "--model", prog.path, "--inputs", CALIB)
    assert want.startswith(prog.path + ".json: layer 0 maps ONNX tensor")
    with pytest.raises(npusim.Error) as e:
        npusim.regress(ONNX, prog, CALIB)
    assert str(e.value) == want


# A compile report is a file anyone can edit: its values changed in place (deleted, numbers at
# the edges, other names, other shapes, lists cut), then regress in a process of its own.
CHILD_REPORT = ATTEMPT + r'''
import json, random, sys
onnx, kmodel, samples, folder, count = sys.argv[1:6]
base = json.load(open(kmodel + ".json"))
rng = random.Random(11)
def paths(o, p=()):
    items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()
    for k, v in items:
        yield p + (k,)
        yield from paths(v, p + (k,))
def at(o, p):
    for k in p:
        o = o[k]
    return o
for i in range(int(count)):
    d = json.loads(json.dumps(base))
    for _ in range(rng.randint(1, 3)):
        p = rng.choice(list(paths(d)))
        parent, key, r = at(d, p[:-1]), p[-1], rng.random()
        if r < 0.25:
            del parent[key]
        elif r < 0.5:
            parent[key] = rng.choice([-1, 0, 1, 3, 100, 2**31, 2**40, -2**40, 1e300])
        elif r < 0.65:
            parent[key] = rng.choice(["", "x", "image", "logits", "/fc/Gemm"])
        elif r < 0.8:
            parent[key] = rng.choice([[], [1], [1, 2], [0, 0, 0, 0], {}, None, True])
        else:
            v = parent[key]
            parent[key] = v[:rng.randrange(len(v))] if isinstance(v, list) and v else None
    path = "{}/report{}.json".format(folder, i)
    json.dump(d, open(path, "w"))
    attempt(lambda: npusim.regress(onnx, kmodel, samples, report=path))
print(dict(seen))
'''


def test_edited_compile_reports_give_errors_never_a_crash(digits, tmp_path):
    samples = tmp_path / "samples.npy"
    np.save(samples, np.load(CALIB)[:4])
    seen = _outcomes(CHILD_REPORT, ONNX, digits / "digits.kmodel", samples, tmp_path, 200)
    assert seen.get("npusim.Error", 0) > 100 and sum(seen.values()) == 200, seen


def test_a_run_into_its_own_folder_reads_only_what_the_record_names(tmp_path):
    # A dataset the user keeps beside a run's outputs is never read back (it was read in full).
    p = npusim.Platform("dlp_zcu102_int8")
    net = os.path.join(ROOT, "configs", "networks", "dlp_tiny.yaml")
    first = p.run(network=net, out=tmp_path / "o")
    np.save(tmp_path / "o" / "dataset.npy", np.zeros((4, 4), np.float32))
    again = p.run(network=net, out=tmp_path / "o")
    assert "dataset.npy" not in again.files
    assert set(again.files) == set(first.files) and again.outputs
    with pytest.raises(npusim.Error, match="holds files npusim did not write"):
        os.makedirs(tmp_path / "photos")
        np.save(tmp_path / "photos" / "x.npy", np.zeros(2))
        p.run(network=net, out=tmp_path / "photos")
