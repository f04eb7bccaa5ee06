"""Platform and Result: the package's face (see __init__)."""

import html
import io
import json
import os
import subprocess
import tempfile

import numpy as np

from . import _npusim


def cli_path():
    """The npusim program: NPUSIM_CLI, else the one installed with the package, else the build's."""
    given = os.environ.get("NPUSIM_CLI")
    if given:
        return given
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npusim")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return _npusim.cli_path()


def _npy(data):
    """An .npy file's bytes (a uint8 array: the module's, over the run's own memory, or a file
    read once) as the array it holds, over the same memory: no copy. Only the header is read
    apart; a version or dtype this does not view (pickled objects) is read by numpy as usual."""
    raw = np.frombuffer(data, np.uint8)
    version = (int(raw[6]), int(raw[7])) if bytes(raw[:6]) == b"\x93NUMPY" else None
    if version not in ((1, 0), (2, 0)):
        return np.load(io.BytesIO(raw.tobytes()), allow_pickle=False)
    width = 2 if version == (1, 0) else 4
    length = int.from_bytes(bytes(raw[8:8 + width]), "little")
    head = io.BytesIO(bytes(raw[8:8 + width + length]))
    read = np.lib.format.read_array_header_1_0 if width == 2 else np.lib.format.read_array_header_2_0
    shape, fortran, dtype = read(head)
    if dtype.hasobject:
        return np.load(io.BytesIO(raw.tobytes()), allow_pickle=False)  # refuses, as numpy does
    start = 8 + width + length
    count = int(np.prod(shape, dtype=np.int64))
    body = raw[start:start + count * dtype.itemsize]
    if body.size != count * dtype.itemsize:
        raise Error("an .npy file of the run is shorter than its header says")
    return body.view(dtype).reshape(shape, order="F" if fortran else "C")


class Result:
    """What a run gives back: outputs (numpy arrays, in the program's order), layers (one dict
    per layer of report.json), totals ({name: value}), the record (report.json as a dict), the
    summary text; for runs of the program, out_dir with trace_path (trace=True) and report_html
    (the folder given as `out`, or a temporary one that lives as long as this result)."""

    def __init__(self, record, files, text, out_dir=None, folder=None):
        self._folder = folder  # a temporary out_dir, removed with the result
        self.record = record or {}
        self.text = text
        self.files = files
        outs = self.record.get("outputs", [])
        self.outputs = [_npy(files[o["file"]]) for o in outs if o.get("file") in files]
        self.dumps = {d["file"]: _npy(files[d["file"]])
                      for d in self.record.get("layer_dumps", []) if d.get("file") in files}
        self.layers = [_flat(layer) for layer in self.record.get("layers", [])]
        self.totals = {name: t["value"] for name, t in self.record.get("totals", {}).items()}
        self.out_dir = out_dir
        self.trace_path = None
        self.report_html = None
        if out_dir:
            trace = os.path.join(out_dir, "trace.json")
            page = os.path.join(out_dir, "report.html")
            self.trace_path = trace if os.path.isfile(trace) else None
            self.report_html = page if os.path.isfile(page) else None

    def to_pandas(self):
        """The layers as a pandas DataFrame (pandas must be installed)."""
        import pandas  # optional: only this method needs it
        return pandas.DataFrame(self.layers)

    def _repr_html_(self):
        """Jupyter shows report.html (its charts) in a frame of its own, else the text. The
        frame runs no scripts (the page has none); it keeps the notebook's origin, because an
        opaque one puts it in a process of its own, which headless chromium sometimes captures
        blank (python/tests/test_notebook.py: 2 of 8 screenshots)."""
        if self.report_html:
            with open(self.report_html, encoding="utf-8") as f:
                page = html.escape(f.read(), quote=True)
            return ('<iframe srcdoc="{}" style="width:100%;height:640px;border:0" '
                    'sandbox="allow-same-origin"></iframe>'.format(page))
        return "<pre>" + html.escape(self.text, quote=False) + "</pre>"


class Platform:
    """A platform config: a YAML file, a built-in one by name ("k210", "finn", "dlp_zcu102_int8",
    "ascend", ...: npusim run --help lists them), or None for the built-in K210; with settings as
    keyword arguments: Platform(kpu__clock_hz="200MHz") is --set kpu.clock_hz=200MHz ("__" for
    ".")."""

    def __init__(self, config=None, **settings):
        self.config = os.fspath(config) if config is not None else ""
        problem = _npusim.platform_arg_problem(self.config) if self.config else ""
        if problem:
            raise Error("--platform: " + problem)
        self.settings = ["{}={}".format(k.replace("__", "."), v) for k, v in settings.items()]
        self._p = _npusim.Platform(self.config, self.settings)

    @property
    def kind(self):
        return self._p.kind

    def run(self, program=None, inputs=None, timed=True, dump_all=False, out=None, trace=False,
            network=None, **options):
        """Runs `program` (a file: a kmodel, a FINN-ONNX graph) or `network` (a DL processor's
        layer list) on `inputs` (a numpy array in the layout and dtype the program takes, or a
        file: .npy or an image; None: the platform's own, e.g. FINN's pseudo-random frames).
        timed=False: values only, in this process. `out`: a folder for the run's files (runs of
        the program always write one: when None, a temporary one that lives as long as the
        result). Platform options as keywords, "_" for "-" (folding="f.json", size_fifos=True)."""
        for option, path in (("--model", program), ("--network", network)):
            if path is not None:
                _must_exist(option, path)
        opts = _options(options)
        with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
            input_path, shown = _as_file(inputs, tmp, "input.npy") if inputs is not None \
                else ("", "")
            try:
                if not timed and not trace and out is None:
                    rep = self._p.run_functional(_path(program), _path(network), input_path,
                                                 dump_all, opts)
                    return Result(json.loads(rep["record"]) if rep["record"] else None,
                                  rep["files"], rep["text"])
                args = ["run"]
                for option, value in (("--model", _path(program)), ("--network", _path(network)),
                                      ("--input", input_path)):
                    args += [option, value] if value else []
                return self._run_cli(args + _option_args(opts), timed, dump_all, out, trace)
            except Error as e:
                raise Error(str(e).replace(input_path, shown) if input_path else str(e)) from None

    def estimate(self, layers=None, model=None, sweep=None, **options):
        """`npusim estimate`: the cost functions of the timed simulation, without simulating, in
        this process. `layers`: a YAML file of layer configurations, or the same as Python data
        ({"layers": [{"name": ..., "in_channels": [16, 32], ...}]}); `model`: a program, costed
        layer by layer; `sweep` (the program's --sweep, another name of --layers): what the
        platform sweeps for `model` (DL processor: {"sweep": {"conv_thread_number": [4, 16]}}).
        Platform options as keywords, "_" for "-" (FINN: folding="f.json", size_fifos=True)."""
        if sweep is not None:
            if layers is not None:
                raise Error("estimate: give layers or sweep, not both (one option, two names)")
            layers = sweep
        if model is not None:
            _must_exist("--model", model)
        with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
            if layers is not None and not isinstance(layers, (str, os.PathLike)):
                path = os.path.join(tmp, "layers.yaml")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(layers, f, default=_plain)  # JSON is YAML
                layers = path
            elif layers is not None:
                _must_exist("--layers", layers)
            rep = self._p.estimate(_path(layers), _path(model), _options(options))
        return Estimate(rep)

    def _cli_args(self):
        """This platform as the program's options."""
        args = ["--platform", self.config] if self.config else []
        for s in self.settings:
            args += ["--set", s]
        return args

    def _run_cli(self, args, timed, dump_all, out, trace):
        args += self._cli_args()
        if not timed:
            args.append("--functional")
        if dump_all:
            args.append("--dump-all")
        if trace:
            args.append("--trace")
        done, record, files, out_dir, folder = _cli(args, out)
        return Result(record, files, _without_wrote(done.stdout), out_dir, folder)


Error = _npusim.Error


class Estimate(Result):
    """What an estimate gives back: `rows` (one dict per configuration of a sweep, or per layer
    of a program), the record, the text (a sweep's CSV) and `note` (its count and host time)."""

    def __init__(self, rep):
        files = rep["files"]
        super().__init__(json.loads(rep["record"]) if rep["record"] else None, files, rep["text"])
        self.note = rep["note"]
        rows = self.record.get("rows", "")
        self.rows = json.loads(bytes(files[rows])) if rows in files else self.layers

    def to_pandas(self):
        """The rows as a pandas DataFrame (pandas must be installed)."""
        import pandas  # optional: only this method needs it
        return pandas.DataFrame(self.rows)


def _flat(layer):
    """A layer of report.json as one flat dict: its measures as numbers, each engine's time as
    "<engine>_ps", and its time_us (end_ps - start_ps) when it has a span."""
    row = {k: v for k, v in layer.items() if k not in ("measures", "engines")}
    for name, m in layer.get("measures", {}).items():
        row[name] = m["value"]
    for e in layer.get("engines", []):
        row["{}_ps".format(e["engine"])] = e["ps"]
    if "time_us" not in row and "start_ps" in row and "end_ps" in row:
        row["time_us"] = (row["end_ps"] - row["start_ps"]) / 1e6
    return row


def _plain(o):
    """numpy numbers and arrays in layer data (np.arange(16, 64, 16)) as JSON numbers and lists."""
    if isinstance(o, (np.generic, np.ndarray)):
        return o.tolist()
    raise Error("layers: {!r} is not a number, text, list or mapping".format(o))


def _path(p):
    """A file argument as the module takes it: "" for none."""
    return "" if p is None else os.fspath(p)


def _options(options):
    """Platform options given as keywords, as the program's: "_" for "-", a flag given (True)
    is "1", one not given (False or None) is left out."""
    return {k.replace("_", "-"): "1" if v is True else _path(v) if isinstance(v, os.PathLike)
            else str(v) for k, v in options.items() if v is not None and v is not False}


def _option_args(opts):
    """The same as the program's arguments: a flag alone, else --name value."""
    args = []
    for name, value in opts.items():
        args += ["--" + name] if value == "1" and name in _FLAGS else ["--" + name, value]
    return args


_FLAGS = frozenset(_npusim.flag_options())  # the platform options that take no value


def _must_exist(option, path):
    """The program's own check of a file option, in its words (without "see npusim --help")."""
    if not os.path.exists(os.fspath(path)):
        kind = "Path" if option in _PATH_OPTIONS else "File"  # CLI11's ExistingPath, ExistingFile
        raise Error("{}: {} does not exist: {}".format(option, kind, os.fspath(path)))


_PATH_OPTIONS = ("--calibrate", "--inputs")  # a file or a folder


def _error_line(stderr):
    """The program's error message without its "npusim: error: " prefix."""
    for line in stderr.splitlines():
        if line.startswith("npusim: error: "):
            return line[len("npusim: error: "):]
    return stderr.strip()


def _cli(args, out):
    """Runs the npusim program with --out `out` (None: a new temporary folder); its report.json
    and the files it names (outputs, dumps, a sweep's rows) read back, nothing else of the folder. Exit 0 or 1 (a check failed) return (done, record, files, out_dir,
    the temporary folder or None); 2 and 3 raise Error with its message."""
    folder = tempfile.TemporaryDirectory(prefix="npusim-run-") if out is None else None
    out_dir = os.path.join(folder.name, "out") if folder else os.fspath(out)
    done = subprocess.run([cli_path()] + args + ["--out", out_dir], capture_output=True,
                          text=True, errors="replace", check=False)
    if done.returncode not in (0, 1):
        raise Error(_error_line(done.stderr) or "npusim exited with {}".format(done.returncode))
    with open(os.path.join(out_dir, "report.json"), encoding="utf-8") as f:
        record = json.load(f)
    files = {}  # each read once into the array the outputs view: only what the record names
    named = [t.get("file") for key in ("outputs", "layer_dumps") for t in record.get(key, [])]
    for name in set(named + [record.get("rows")]):
        path = os.path.join(out_dir, name) if name and os.path.basename(name) == name else None
        if path and os.path.isfile(path):
            files[name] = np.fromfile(path, np.uint8)
    return done, record, files, out_dir, folder


def _without_wrote(stdout):
    return stdout[: stdout.rfind("wrote ")] if "wrote " in stdout else stdout


def _as_file(x, tmp, name, option="--input"):
    """A path as given (checked), or an array saved as .npy in `tmp`; and how messages name it."""
    if isinstance(x, (str, os.PathLike)):
        _must_exist(option, x)
        return os.fspath(x), os.fspath(x)
    arr = np.asarray(x)
    shown = "<input array {} {}>".format(arr.dtype, tuple(arr.shape))
    if arr.dtype.hasobject:  # numpy would refuse to save it with a ValueError of its own
        raise Error("{}: an array of Python objects is no tensor: give numbers (uint8, int8, "
                    "int16, int32, float16 or float32)".format(shown))
    path = os.path.join(tmp, name)
    np.save(path, np.ascontiguousarray(arr), allow_pickle=False)
    return path, shown
