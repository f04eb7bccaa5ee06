"""The other platforms from Python as the program runs them: built-ins by name (what an installed
package has without the checkout), FINN with its platform options, the DL processor's --network."""

import json
import os

import numpy as np
import pytest

import npusim

from conftest import ROOT, cli, cli_error

FINN = os.path.join(ROOT, "configs", "networks", "finn")
TFC = os.path.join(FINN, "tfc_digits.onnx")
FOLDING = os.path.join(FINN, "folding.json")
DLP_NET = os.path.join(ROOT, "configs", "networks", "dlp_tiny.yaml")


def _record(folder):
    with open(os.path.join(folder, "report.json"), encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("name", ["k210", "finn", "dlp_zcu102_int8", "dlp_zcu102_single",
                                  "dlp_zc706_int8", "dlp_zc706_single", "dlp_arria10soc_int8",
                                  "dlp_arria10soc_single", "ascend", "selfcheck"])
def test_a_built_in_platform_by_name_is_its_config_file(name):
    by_name = npusim.Platform(name)
    by_file = npusim.Platform(os.path.join(ROOT, "configs", name + ".yaml"))
    assert by_name.kind == by_file.kind
    assert by_name._p.source == "<built-in configs/{}.yaml>".format(name)


def test_a_platform_that_is_neither_file_nor_name_is_the_programs_error():
    want = cli_error("info", "--platform", "k211")
    with pytest.raises(npusim.Error) as e:
        npusim.Platform("k211")
    assert str(e.value) == want
    assert "nor a built-in platform: ascend, dlp_arria10soc_int8" in want


def test_a_finn_run_with_its_options_equals_the_programs(tmp_path):
    x = np.load(os.path.join(FINN, "test_inputs.npy"))[:4]
    np.save(tmp_path / "x.npy", x)
    p = npusim.Platform("finn")
    timed = p.run(TFC, x, folding=FOLDING, size_fifos=True)
    rc, _, err = cli("run", "--platform", "finn", "--model", TFC, "--input",
                     str(tmp_path / "x.npy"), "--folding", FOLDING, "--size-fifos", "--out",
                     str(tmp_path / "t"))
    assert rc == 0, err
    rec = _record(tmp_path / "t")
    assert timed.outputs[0].tobytes() == np.load(tmp_path / "t" / "output.npy").tobytes()
    assert timed.totals == {k: t["value"] for k, t in rec["totals"].items()}
    assert timed.record["layers"] == rec["layers"]
    assert os.path.isfile(os.path.join(timed.out_dir, "folding_sized.json"))  # --size-fifos ran
    values = p.run(TFC, x, timed=False, folding=FOLDING)  # in this process
    assert values.outputs[0].tobytes() == timed.outputs[0].tobytes()
    with pytest.raises(npusim.Error, match="--folding: an option of the finn platform"):
        npusim.Platform().run(TFC, x, timed=False, folding=FOLDING)


def test_a_dl_processor_network_run_equals_the_programs(tmp_path):
    p = npusim.Platform("dlp_zcu102_int8")
    r = p.run(network=DLP_NET)
    rc, _, err = cli("run", "--platform", "dlp_zcu102_int8", "--network", DLP_NET, "--out",
                     str(tmp_path / "d"))
    assert rc == 0, err
    rec = _record(tmp_path / "d")
    assert r.outputs[0].tobytes() == np.load(tmp_path / "d" / "output_0.npy").tobytes()
    assert r.totals == {k: t["value"] for k, t in rec["totals"].items()}
    want = cli_error("run", "--platform", "dlp_zcu102_int8", "--network", DLP_NET, "--functional")
    with pytest.raises(npusim.Error) as e:
        p.run(network=DLP_NET, timed=False)
    assert str(e.value) == want
