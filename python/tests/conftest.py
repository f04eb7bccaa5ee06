"""The package's tests: the package built in <build>/python (PYTHONPATH), the npusim program
beside it, ../shared's models when present (else those tests skip, saying why)."""

import os
import subprocess

import pytest

import npusim
from npusim._platform import cli_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def cli(*args, cwd=None):
    """npusim ARGS as the command line runs it: (exit code, stdout, stderr)."""
    done = subprocess.run([cli_path(), *args], capture_output=True, text=True, errors="replace",
                          cwd=cwd,
                          check=False)
    return done.returncode, done.stdout, done.stderr


def cli_error(*args):
    """The one error message (its lines) the program prints for ARGS, without its "npusim: error: " prefix."""
    rc, _, err = cli(*args)
    assert rc == 2, err
    assert err.count("npusim: error: ") == 1, err
    message = err[err.index("npusim: error: ") + len("npusim: error: "):].rstrip("\n")
    return message.replace(" (see 'npusim --help')", "")


@pytest.fixture(scope="session")
def digits(tmp_path_factory):
    """The default job's files: digits.kmodel, input.npy and the timed run's output_0.npy and
    report.json, as `npusim run --out DIR` writes them."""
    out = tmp_path_factory.mktemp("digits") / "out"
    rc, _, err = cli("run", "--out", str(out))
    assert rc == 0, err
    return out


def shared(*parts):
    path = os.path.join(SHARED, *parts)
    if not os.path.exists(path):
        pytest.skip("{} is not here (../shared holds the real models)".format(path))
    return path


@pytest.fixture
def platform():
    return npusim.Platform()


def pytest_sessionfinish(session, exitstatus):
    """A file whose tests all skipped is a skipped ctest (exit 77), never a passed one."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if exitstatus == 0 and reporter is not None:
        ran = len(reporter.stats.get("passed", [])) + len(reporter.stats.get("failed", []))
        if ran == 0 and reporter.stats.get("skipped"):
            session.exitstatus = 77
