"""The Python package (python/v10sim, docs/python.md) against the CLI: the
same figures as `run --format json`, `profile --format json` and `sweep`'s
results.csv; errors carrying the C library's message; settings that
reproduce a run; docs/python.md's example; `make install`'s library,
headers, pkg-config file and package; `python3 -m pip install .` offline.

Run by ctest (CMakeLists.txt: test `python`) with Debian's /usr/bin/python3,
which has python3-pytest and python3-pandas, and V10SIM_LIB, V10SIM (the
CLI), V10_BUILD (the build folder) and PYTHONPATH=python set."""
import json
import os
import re
import subprocess
import sys

import pytest

import v10sim

CLI = os.environ["V10SIM"]
BUILD = os.environ["V10_BUILD"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(*args, check=True):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, cwd=ROOT)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def no_perf(d):
    d = dict(d)
    d.pop("perf")
    return d


def test_run_is_the_cli_report():
    r = v10sim.run(tenants=["isca23/bert", "isca23/ncf"], policy="v10-full")
    want = json.loads(cli("run", "--tenant", "isca23/bert", "--tenant", "isca23/ncf",
                          "--policy", "v10-full", "--format", "json").stdout)
    assert no_perf(r.raw) == no_perf(want)
    assert r.stp == want["system"]["stp"] and r.antt == want["system"]["antt"]
    assert r.tenants[1].latency_us.p95 == want["tenants"][1]["latency_us"]["p95"]
    assert r.utilization.overlap == want["utilization"]["overlap"]
    t = r.to_pandas()
    assert list(t["name"]) == ["t0:isca23/bert", "t1:isca23/ncf"]
    assert t["latency_us.p95"][1] == want["tenants"][1]["latency_us"]["p95"]
    assert t["np"].sum() == pytest.approx(r.stp, rel=1e-12)  # STP = sum of NP


def test_several_policies_and_their_table():
    rs = v10sim.run(tenants=["mnist", "ncf"], policy=["pmt", "v10-full"], requests=4,
                    pmt_slice_us=500)
    want = json.loads(cli("run", "--tenant", "mnist", "--tenant", "ncf", "--policy",
                          "pmt,v10-full", "--requests", "4", "--pmt-slice-us", "500",
                          "--format", "json").stdout)
    assert [no_perf(r.raw) for r in rs] == [no_perf(w) for w in want]
    df = rs.to_pandas()
    assert list(df["policy"]) == ["pmt", "pmt", "v10-full", "v10-full"]
    assert list(df["system.stp"]) == [w["system"]["stp"] for w in want for _ in range(2)]
    assert df["tenant.latency_us.p99"].iloc[3] == want[1]["tenants"][1]["latency_us"]["p99"]
    assert rs[0].raw["config"]["params"]["pmt_slice_us"] == 500


def test_errors_carry_the_c_message():
    with pytest.raises(v10sim.V10Error) as e:
        v10sim.run(tenants=["isca23/bert"], requests=0)
    assert str(e.value) == "v10sim.run: requests: expected an integer in [1, 10000000], got 0"
    with pytest.raises(v10sim.V10Error) as e:
        v10sim.run(tenants=["nosuch"])
    p = cli("run", "--tenant", "nosuch", check=False)
    assert p.returncode == 1 and str(e.value) in p.stderr, (str(e.value), p.stderr)
    with pytest.raises(v10sim.V10Error, match="unknown key"):
        v10sim.run(tenants=["mnist"], polcy="pmt")


def test_settings_reproduce_a_run(tmp_path):
    r = v10sim.run(tenants=["mnist:priority=2", "ncf"], policy="v10-fair", seed=5,
                   requests=5, npu_fields={"hbm_gbps": 660})
    assert r.settings.raw["npu"]["hbm_gbps"] == 660
    assert no_perf(v10sim.run(r).raw) == no_perf(r.raw)
    assert no_perf(v10sim.run(settings=r.raw["settings"]).raw) == no_perf(r.raw)
    f = tmp_path / "run.json"
    f.write_text(json.dumps(r.raw))
    assert no_perf(v10sim.run(str(f)).raw) == no_perf(r.raw)
    want = json.loads(cli("run", "--config", str(f), "--format", "json").stdout)
    assert no_perf(want) == no_perf(r.raw)
    assert v10sim.run(r, seed=6).settings.seed == 6  # keywords override


def test_profile_is_the_cli_profile():
    p = v10sim.profile("mnist", batch=8, npu="tpuv4-core")
    want = json.loads(cli("profile", "mnist:batch=8", "--npu", "tpuv4-core", "--format",
                          "json").stdout)
    assert p.raw == want
    df = p.to_pandas()
    assert len(df) == len(want["ops"]) and df["cycles"].sum() > 0
    with pytest.raises(v10sim.V10Error, match="unknown NPU preset|npu"):
        v10sim.profile("mnist", npu="nosuch")


def test_sweep_is_the_cli_results_csv(tmp_path):
    pd = pytest.importorskip("pandas")
    spec = os.path.join(ROOT, "tests/data/sweep/tiny.json")
    cwd = os.getcwd()
    os.chdir(ROOT)  # the spec's trace CSVs are relative to the repository
    try:
        df = v10sim.sweep(spec, jobs=2)
        kept = v10sim.sweep(json.load(open(spec)), out=tmp_path / "kept", jobs=1)
    finally:
        os.chdir(cwd)
    cli("sweep", spec, "-j", "2", "--out", str(tmp_path / "cli"), "--quiet")
    want = pd.read_csv(tmp_path / "cli" / "results.csv")
    assert len(df) == 48 and list(df.columns) == list(want.columns)
    pd.testing.assert_frame_equal(df, want)
    assert (tmp_path / "kept" / "results.db").exists()
    with pytest.raises(v10sim.V10Error, match="axes.polcy: unknown key"):
        v10sim.sweep({"axes": {"polcy": ["pmt"]}, "fixed": {"mix": ["mnist"]}})


def test_the_docs_example_runs():
    md = open(os.path.join(ROOT, "docs/python.md"), encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", md, re.S)
    assert blocks, "docs/python.md has no python example"
    p = subprocess.run([sys.executable, "-c", blocks[0]], capture_output=True, text=True,
                       cwd=ROOT, env=os.environ)
    assert p.returncode == 0, p.stderr
    stp = json.loads(cli("run", "--tenant", "isca23/bert", "--tenant", "isca23/ncf",
                         "--format", "json").stdout)["system"]["stp"]
    assert p.stdout.splitlines()[0] == repr(stp), p.stdout  # its first line: the STP


def env_without_lib():
    env = dict(os.environ)
    env.pop("V10SIM_LIB")
    env.pop("PYTHONPATH")
    return env


def test_make_install_pkg_config_and_a_c_program(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)], check=True,
                   capture_output=True)
    for f in ("bin/v10sim", "lib/libv10sim.so.0", "include/v10/api.h",
              "lib/pkgconfig/v10sim.pc", "lib/python3/dist-packages/v10sim/__init__.py"):
        assert (prefix / f).exists(), f
    env = env_without_lib()
    env["PKG_CONFIG_PATH"] = str(prefix / "lib/pkgconfig")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "v10sim"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    assert "-lv10sim" in flags and "-I%s/include" % prefix in flags, flags
    src = tmp_path / "stp.c"
    src.write_text(
        '#include <stdio.h>\n#include <string.h>\n#include <v10/api.h>\n'
        'int main(void) {\n    v10_err err;\n'
        '    char *r = v10_run_json("{\\"tenants\\": [\\"mnist\\", \\"ncf\\"]}", "c", &err);\n'
        '    if (!r) { fprintf(stderr, "%s\\n", err.msg); return 1; }\n'
        '    fputs(r, stdout);\n    v10_free(r);\n    return 0;\n}\n')
    exe = tmp_path / "stp"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", str(src), "-o", str(exe), *flags],
                   check=True, env=env)
    env["LD_LIBRARY_PATH"] = str(prefix / "lib")
    out = json.loads(subprocess.run([str(exe)], capture_output=True, text=True, env=env,
                                    check=True).stdout)
    want = json.loads(cli("run", "--tenant", "mnist", "--tenant", "ncf", "--format",
                          "json").stdout)
    assert no_perf(out) == no_perf(want)
    env["PYTHONPATH"] = str(prefix / "lib/python3/dist-packages")
    code = "import v10sim; print(v10sim.run(tenants=['mnist','ncf']).stp, v10sim._lib.lib._name)"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path), check=True).stdout.split()
    assert float(got[0]) == want["system"]["stp"] and got[1].startswith(str(prefix)), got


def test_pip_install_offline(tmp_path):
    target = tmp_path / "site"
    env = env_without_lib()
    env["V10SIM_BUILD_DIR"] = BUILD  # the wheel takes the library built there
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-cache-dir",
                        "--target", str(target), ROOT], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (target / "v10sim" / "libv10sim.so.0").exists()
    env["PYTHONPATH"] = str(target)
    code = "import v10sim; print(v10sim.run(tenants=['mnist','ncf']).stp, v10sim._lib.lib._name)"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path), check=True).stdout.split()
    want = json.loads(cli("run", "--tenant", "mnist", "--tenant", "ncf", "--format",
                          "json").stdout)["system"]["stp"]
    assert float(got[0]) == want and got[1].startswith(str(target)), got
