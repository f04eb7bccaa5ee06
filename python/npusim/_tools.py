"""compile, regress, infer and aipp: the program's other commands, numpy in and out."""

import json
import os
import shutil
import tempfile
import weakref

from . import _npusim
from ._platform import (Error, Platform, Result, _as_file, _cli, _must_exist, _option_args,
                        _options, _without_wrote)

_TOLERANCES = ("max_lsb", "min_cosine", "min_top1")
_PREPROCESSING = ("mean", "std", "scale", "channel_order", "layout")


class Program:
    """A compiled program: `path` (the kmodel), `report` (its compile report, <path>.json, as a
    dict) and the compiler's text. Written into a temporary folder when no output was given; the
    folder goes with the object."""

    def __init__(self, path, text, keep_dir=None):
        self.path = path
        self.text = text
        with open(path + ".json", encoding="utf-8") as f:
            self.report = json.load(f)
        if keep_dir:
            self._cleanup = weakref.finalize(self, shutil.rmtree, keep_dir, True)

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return "npusim.Program({!r})".format(self.path)


class Regression(Result):
    """A regression's verdict: `passed`, `checks` (one dict per check: name, measured, relation,
    limit, passed, layer), `layers` (per mapped layer: its measures), `text` (the per-layer
    table, as `npusim regress` prints it)."""

    def __init__(self, record, files, text, passed, out_dir=None, folder=None):
        super().__init__(record, files, text, out_dir, folder)
        self.passed = passed
        self.checks = self.record.get("checks", [])

    def failed_checks(self):
        return [c for c in self.checks if not c.get("passed", True)]


def compile(onnx, calibration, target="k210", output=None, kmodel_version="auto", mean=None,
            std=None, scale=None, channel_order=None):  # pylint: disable=redefined-builtin
    """`npusim compile`: the ONNX model quantized on `calibration` (a numpy batch, or a .npy, an
    image or a folder of them) into a program for `target`; a Program. In this process."""
    _must_exist("--onnx", onnx)
    with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
        samples, shown = _as_file(calibration, tmp, "calibration.npy", "--calibrate")
        keep = None
        if output is None:
            keep = tempfile.mkdtemp(prefix="npusim-program-")
            output = os.path.join(keep, os.path.splitext(os.path.basename(onnx))[0] + ".kmodel")
        try:
            text = _npusim.compile(os.fspath(onnx), samples, os.fspath(output), target,
                                   str(kmodel_version), list(mean or []), list(std or []),
                                   -1.0 if scale is None else float(scale), channel_order or "")
        except Error as e:
            if keep:
                shutil.rmtree(keep, True)
            raise Error(str(e).replace(samples, shown)) from None
    return Program(os.fspath(output), text, keep)


def regress(onnx, program, inputs, tolerances=None, platform=None, timed=False, labels=None,
            report=None, preprocess=None, out=None, **pre):
    """`npusim regress`: `program` on the platform (default the built-in K210) against its float
    ONNX model on `inputs` (a numpy batch or a .npy/folder); `onnx` None where the program is
    the ONNX model itself (the DL processor's). `tolerances`: a dict with max_lsb, min_cosine,
    min_top1, or a YAML file. Preprocessing of a program we did not compile: mean, std, scale,
    channel_order, layout as keywords; other keywords are the platform's options, "_" for "-"
    (the DL processor's calibrate="samples.npy"). A Regression (its `passed` may be False: see
    assert_regress). Untimed K210 regressions run in this process; the rest in the program's."""
    platform = platform if isinstance(platform, Platform) else Platform(platform)
    if onnx is not None:
        _must_exist("--onnx", onnx)
    _must_exist("--model", program)
    opts = _options({k: v for k, v in pre.items() if k not in _PREPROCESSING})
    platform._p.check_options(opts)  # pylint: disable=protected-access
    pre = {k: v for k, v in pre.items() if k in _PREPROCESSING}
    tol = dict(tolerances) if isinstance(tolerances, dict) else {}
    unknown = set(tol) - set(_TOLERANCES)
    if unknown:
        raise Error("tolerances: unknown {}; known: {}".format(", ".join(sorted(unknown)),
                                                               ", ".join(_TOLERANCES)))
    with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
        samples, shown = _as_file(inputs, tmp, "inputs.npy", "--inputs")
        label_file = _as_file(labels, tmp, "labels.npy", "--labels")[0] if labels is not None else ""
        o = _npusim.RegressOptions()
        o.onnx = os.fspath(onnx) if onnx is not None else ""
        o.model, o.inputs, o.labels = os.fspath(program), samples, label_file
        o.report = os.fspath(report or "")
        o.preprocess = os.fspath(preprocess or "")
        if tolerances is not None and not isinstance(tolerances, dict):
            o.tolerances = os.fspath(tolerances)
        for k, v in tol.items():
            setattr(o, k, float(v))
        for k, v in pre.items():
            setattr(o, k, [float(x) for x in v] if k in ("mean", "std") else v)
        try:
            if platform.kind == "k210" and not timed and out is None and not opts:
                rep = platform._p.regress(o)  # pylint: disable=protected-access
                rec = json.loads(rep["record"]) if rep["record"] else None
                return Regression(rec, rep["files"], rep["text"], rep["passed"])
            return _regress_cli(platform, o, timed, out, opts)
        except Error as e:
            raise Error(str(e).replace(samples, shown)) from None


def _regress_cli(platform, o, timed, out, opts):
    args = ["regress", "--model", o.model] + (["--onnx", o.onnx] if o.onnx else [])
    args += ["--inputs", o.inputs] if o.inputs else []
    for flag, value in (("--labels", o.labels), ("--report", o.report),
                        ("--preprocess", o.preprocess), ("--tolerances", o.tolerances),
                        ("--channel-order", o.channel_order), ("--layout", o.layout)):
        if value:
            args += [flag, value]
    for flag, value in (("--max-lsb", o.max_lsb), ("--min-cosine", o.min_cosine),
                        ("--min-top1", o.min_top1), ("--scale", o.scale)):
        if value >= 0:
            args += [flag, repr(value)]
    for flag, values in (("--mean", o.mean), ("--std", o.std)):
        if values:
            args += [flag, ",".join(repr(v) for v in values)]
    if timed:
        args.append("--timed")
    args += _option_args(opts)
    done, record, files, out_dir, folder = _cli(args + platform._cli_args(), out)
    return Regression(record, files, _without_wrote(done.stdout), done.returncode == 0,
                      out_dir, folder)


def infer(onnx, inputs, dump_all=False):
    """`npusim infer`: the float reference evaluator, in this process. `inputs`: one array (or
    .npy path) per graph input, or one alone. A Result: outputs in the graph's output order
    (dumps: every node's value with dump_all), named by `names`."""
    _must_exist("--onnx", onnx)
    arrays = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
        paths, shown = [], []
        for i, x in enumerate(arrays):
            path, name = _as_file(x, tmp, "input_{}.npy".format(i))
            paths.append(path)
            shown.append(name)
        try:
            rep = _npusim.infer(os.fspath(onnx), paths, dump_all)
        except Error as e:
            message = str(e)
            for path, name in zip(paths, shown):
                message = message.replace(path, name)
            raise Error(message) from None
    r = Result(json.loads(rep["record"]), rep["files"], rep["text"])
    r.names = [o["name"] for o in r.record.get("outputs", [])]
    return r


def aipp(image=None, config=None, platform=None, out=None, **settings):
    """`npusim aipp`: one Ascend AIPP load-image job (the job YAML `config`, default the built-in
    one) on `image` (a path: PNG/JPEG/BMP, .npy or raw YUV; or a numpy array, saved as .npy), on
    the Ascend platform (`platform` a YAML file or a built-in's name; settings as keywords, "__"
    for "."). Timed: runs
    in the program's process. A Result: outputs [the tile], record, text."""
    with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
        args = ["aipp"]
        if image is not None:
            path, _ = _as_file(image, tmp, "image.npy", "--input")
            args += ["--input", path]
        if config is not None:
            _must_exist("--config", config)
            args += ["--config", os.fspath(config)]
        if platform is not None:  # a file or a built-in's name: the program checks it
            args += ["--platform", os.fspath(platform)]
        for k, v in settings.items():
            args += ["--set", "{}={}".format(k.replace("__", "."), v)]
        done, record, files, out_dir, folder = _cli(args, out)
        return Result(record, files, _without_wrote(done.stdout), out_dir, folder)


def assert_regress(onnx, program, inputs, tolerances=None, **kwargs):
    """regress(...) that fails (AssertionError) with the per-layer table and the failed checks
    when a tolerance is exceeded; returns the Regression when every check passed."""
    r = regress(onnx, program, inputs, tolerances, **kwargs)
    if not r.passed:
        failed = "\n".join("  {name}: {measured} {relation} {limit} {unit}".format(**c).rstrip()
                           for c in r.failed_checks())
        raise AssertionError("npusim regress: {} of {} checks failed:\n{}\n\n{}".format(
            len(r.failed_checks()), len(r.checks), failed, r.text))
    return r
