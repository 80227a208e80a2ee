"""`flashsim results export`: its CSV and Parquet tables read back by pandas
equal what flashsim.Results shows (the same run's summary, time series,
requests and components, value for value, doubles to the bit), and the
snippet of docs/python.md ("Results as CSV and Parquet") runs as written.
Parquet needs pyarrow (tools/setup.sh installs it into .venv): skipped
without it, except under CI=true."""
import json
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import flashsim

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MINI = os.path.join(ROOT, "scenarios", "examples", "mixtral-mini-experts.yaml")


def _binary():
    """The flashsim command beside the package built into build/python."""
    path = os.environ.get("FLASHSIM_BINARY") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(flashsim.__file__)))), "bin", "flashsim")
    if not os.access(path, os.X_OK):
        if os.environ.get("CI") == "true":
            pytest.fail(f"no flashsim command at {path} (set FLASHSIM_BINARY)")
        pytest.skip(f"no flashsim command at {path} (an installed package without the build tree)")
    return path


def _need_pyarrow():
    try:
        import pyarrow  # noqa: F401
    except ImportError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"pyarrow missing under CI=true ({e}): tools/setup.sh installs it into .venv")
        pytest.skip(f"pyarrow is not installed for {sys.executable} ({e}); tools/setup.sh installs it into .venv")


def _flashsim(*args, cwd):
    # The Parquet converter runs with this interpreter, the one whose pyarrow was checked.
    env = dict(os.environ, FLASHSIM_PYTHON=sys.executable)
    p = subprocess.run([_binary(), *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    """The mini Mixtral under LRU and 2Q: windows, requests and components in every run."""
    out = tmp_path_factory.mktemp("export") / "res"
    return flashsim.run(MINI, policies=["lru", "2q"], out=str(out))


def _by_run(table, run):
    return table[table["run"] == run].drop(columns="run").reset_index(drop=True)


def _check_tables(folder, ext, res):
    read = (lambda name: pd.read_parquet(folder / f"{name}.parquet")) if ext == "parquet" else \
        (lambda name: pd.read_csv(folder / f"{name}.csv", keep_default_na=False, float_precision="round_trip"))
    summary = read("summary")
    want = res.summary
    assert list(summary.columns) == list(want.columns)
    assert len(summary) == 2
    for col in want.columns:
        got = summary[col].map(json.loads) if col == "params" else summary[col]
        assert got.tolist() == want[col].tolist(), col  # exact: == on floats, dicts, text
    assert summary.loc[1, "params"] == '{"kin":"0.25","kout":"0.5"}'
    for name in ("timeseries", "requests", "components"):
        table = read(name)
        assert table.columns[0] == "run"
        total = 0
        for run in range(2):
            mine = getattr(res, name)(run)
            assert len(mine) > 0, name
            # Parquet keeps the dtypes (uint64 counters as h5py gives them); CSV's are pandas' guesses.
            pd.testing.assert_frame_equal(_by_run(table, run), mine, check_dtype=(ext == "parquet"), obj=f"{name} {run}")
            total += len(mine)
        assert len(table) == total


def test_csv_equals_results(mini, tmp_path):
    _flashsim("results", "export", mini.path, "--format", "csv", "--out", str(tmp_path / "csv"), cwd=tmp_path)
    _check_tables(tmp_path / "csv", "csv", mini)


def test_parquet_equals_results(mini, tmp_path):
    _need_pyarrow()
    p = _flashsim("results", "export", mini.path, "--format", "parquet", cwd=tmp_path)
    out = os.path.join(mini.path, "export-parquet")
    assert f"wrote {out}/:" in p.stdout
    assert sorted(os.listdir(out)) == ["component_series.parquet", "component_texts.parquet", "components.parquet",
                                       "requests.parquet", "summary.parquet", "timeseries.parquet"]  # no temp files left
    from pathlib import Path
    _check_tables(Path(out), "parquet", mini)
    # The schema's types: counters unsigned, times signed, ratios double, text as str.
    ts = pd.read_parquet(Path(out) / "timeseries.parquet")
    assert ts["hits"].dtype == np.uint64 and ts["stall_ns"].dtype == np.int64
    s = pd.read_parquet(Path(out) / "summary.parquet")
    assert s["hits"].dtype == np.uint64 and s["oom_token_index"].dtype == np.int64
    assert s["hit_ratio_by_byte"].dtype == np.float64 and isinstance(s.loc[0, "policy_label"], str)


def _docs_section():
    text = open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8").read()
    section = text.split("## Results as CSV and Parquet", 1)[1].split("\n## ", 1)[0]
    shell = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    python = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    return shell, python


def test_docs_snippet_runs_as_written(mini, tmp_path):
    """docs/python.md's export commands and its pandas one-liners, on a copy named as the docs name it."""
    _need_pyarrow()
    shell, python = _docs_section()
    os.symlink(mini.path, tmp_path / "res")
    commands = [shlex.split(line.split("#", 1)[0]) for line in shell.splitlines()
                if line.startswith("flashsim results export")]
    assert len(commands) == 2  # csv and parquet
    for argv in commands:
        _flashsim(*argv[1:], cwd=tmp_path)
    scope = {}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(python, "docs/python.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    # What the snippet's names hold: the Results tables.
    assert scope["summary"]["hit_ratio_by_byte"].tolist() == mini.summary["hit_ratio_by_byte"].tolist()
    pd.testing.assert_frame_equal(_by_run(scope["timeseries"], 0), mini.timeseries(0))
    assert scope["hits"].tolist() == mini.summary["hits"].tolist()


def test_results_export_from_python_equals_the_command(mini, tmp_path):
    """Results.export writes the command's tables, byte for byte in CSV."""
    _flashsim("results", "export", mini.path, "--format", "csv", "--out", str(tmp_path / "cmd"), cwd=tmp_path)
    written = mini.export(tmp_path / "py")
    assert sorted(os.path.basename(p) for p in written) == ["component_series.csv", "component_texts.csv",
                                                            "components.csv", "requests.csv", "summary.csv",
                                                            "timeseries.csv"]
    for p in written:
        name = os.path.basename(p)
        assert open(p, "rb").read() == open(tmp_path / "cmd" / name, "rb").read(), name
    _need_pyarrow()
    mini.export(tmp_path / "pq", format="parquet")
    _check_tables(tmp_path / "pq", "parquet", mini)
    with pytest.raises(flashsim.InputError, match="expected csv or parquet"):
        mini.export(tmp_path / "x", format="xlsx")


PROGRAM = os.path.join(ROOT, "validate", "baselines", "h200", "programs", "double_buffer_prefetch.h5")


def test_component_texts_and_series_equal_results(tmp_path):
    """A program engine run reports texts and series; both formats' tables equal
    Results.component_texts / component_series, and runs without them give empty
    tables that keep their columns."""
    scenario = tmp_path / "p.yaml"
    scenario.write_text(f"name: p\nengine: {{impl: program, skip_steps: 10}}\nhardware: {{profile: h200-calibrated}}\n"
                        f"workload: {{trace: {PROGRAM}}}\npolicies: [as_recorded]\n")
    res = flashsim.run(str(scenario), out=str(tmp_path / "res"))
    texts, series = res.component_texts(0), res.component_series(0)
    assert not {"components", "component_texts", "component_series"} & set(res.summary.columns)
    assert texts.loc[texts["name"] == "step_rule", "text"].tolist() == ["nvtx:flashsim.step"]
    steps = series[series["name"] == "step_ns"]
    assert steps["index"].tolist() == list(range(8)) and set(steps["unit"]) == {"ns"}
    _flashsim("results", "export", res.path, "--format", "csv", "--out", str(tmp_path / "csv"), cwd=tmp_path)
    read = lambda name: pd.read_csv(tmp_path / "csv" / f"{name}.csv", keep_default_na=False,
                                    float_precision="round_trip")
    pd.testing.assert_frame_equal(_by_run(read("component_texts"), 0), texts, check_dtype=False)
    pd.testing.assert_frame_equal(_by_run(read("component_series"), 0), series, check_dtype=False)
    _need_pyarrow()
    _flashsim("results", "export", res.path, "--format", "parquet", "--out", str(tmp_path / "pq"), cwd=tmp_path)
    got = pd.read_parquet(tmp_path / "pq" / "component_series.parquet")
    assert got["index"].dtype == np.uint64 and got["value"].dtype == np.float64
    pd.testing.assert_frame_equal(_by_run(got, 0), series, check_dtype=False)


@pytest.mark.parametrize("damage, named", [
    ({"component_series": 7}, "component_series is not a list"),
    ({"component_series": [{"component": "p", "name": "s", "unit": "ns", "values": 5}]}, "values is not a list"),
    ({"component_series": [{"component": "p", "name": "s", "values": [1]}]}, "unit is None, not a text"),
    ({"component_texts": "x"}, "component_texts is not a list"),
    ({"component_texts": [{"component": "p", "name": "n", "text": [1]}]}, "text is [1], not a text"),
])
def test_damaged_component_lists_are_named(mini, tmp_path, damage, named):
    folder = tmp_path / "res"
    folder.mkdir()
    doc = json.load(open(os.path.join(mini.path, "summary.json")))
    doc["runs"][0].update(damage)
    (folder / "summary.json").write_text(json.dumps(doc))
    res = flashsim.Results(folder)
    with pytest.raises(flashsim.InputError, match=re.escape(named)):
        res.component_texts(0) if "component_texts" in damage else res.component_series(0)


def test_runs_without_texts_export_empty_tables_with_columns(mini, tmp_path):
    _flashsim("results", "export", mini.path, "--format", "csv", "--out", str(tmp_path / "csv"), cwd=tmp_path)
    assert open(tmp_path / "csv" / "component_texts.csv").read() == "run,component,name,text\n"
    assert mini.component_texts(0).empty and list(mini.component_texts(0).columns) == ["component", "name", "text"]


def test_timeseries_group_names_follow_the_writer():
    assert flashsim._core.timeseries_group_name(7, 10) == "run_007"
    assert flashsim._core.timeseries_group_name(7, 1500) == "run_0007"
