"""v10sim — the multi-tenant NPU simulator's C library (libv10sim.so) from
Python (docs/python.md).  Every figure comes from the library: a run is the
report `v10sim run --format json` prints, a profile `v10sim profile --format
json`'s, a sweep the results.csv of `v10sim sweep`.

    import v10sim
    r = v10sim.run(tenants=["isca23/bert", "isca23/ncf"], policy="v10-full")
    r.stp, r.tenants[0].latency_us.p95, r.to_pandas()
"""
import json
import os
import shutil
import tempfile

from . import _lib
from ._lib import V10Error

__all__ = ["run", "profile", "sweep", "Run", "Runs", "Profile", "Record", "V10Error",
           "__version__"]

__version__ = _lib.lib.v10_version().decode()


def _pandas():
    try:
        import pandas
    except ImportError as e:  # optional: only tables need it
        raise ImportError("v10sim: to_pandas() and sweep() need pandas "
                          "(Debian: apt-get install python3-pandas)") from e
    return pandas


class Record:
    """A JSON object of a report with its keys as attributes, recursively
    (r.system.stp, r.tenants[0].latency_us.p95); r["key"] and r.raw (the
    dict) too.  Keys that are not identifiers ("t1:isca23/ncf") are reached
    with []."""

    def __init__(self, raw):
        self.raw = raw

    @staticmethod
    def _wrap(v):
        if isinstance(v, dict):
            return Record(v)
        if isinstance(v, list):
            return [Record._wrap(x) for x in v]
        return v

    def __getattr__(self, key):
        if key == "raw":
            raise AttributeError(key)
        try:
            return self._wrap(self.raw[key])
        except KeyError:
            raise AttributeError("%s has no key %r (keys: %s)" % (
                type(self).__name__, key, ", ".join(self.raw))) from None

    def __getitem__(self, key):
        return self._wrap(self.raw[key])

    def __contains__(self, key):
        return key in self.raw

    def __dir__(self):
        return list(self.raw) + [k for k in type(self).__dict__ if not k.startswith("_")]

    def __eq__(self, other):
        return isinstance(other, Record) and self.raw == other.raw

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(self.raw))


class Run(Record):
    """One run's report (`run --format json`): .config, .settings (what
    reproduces it: v10sim.run(settings=r.settings)), .utilization,
    .system, .tenants, .fus, ... and the system figures as .stp, .antt,
    .fairness, .jain."""

    stp = property(lambda self: self.raw["system"]["stp"])
    antt = property(lambda self: self.raw["system"]["antt"])
    fairness = property(lambda self: self.raw["system"]["fairness"])
    jain = property(lambda self: self.raw["system"]["jain"])

    def to_pandas(self):
        """The per-tenant table: one row per tenant, nested figures as
        dotted columns (latency_us.p95, states_cycles.exec, ...)."""
        pd = _pandas()
        return pd.json_normalize(self.raw["tenants"])

    def _policy_rows(self):
        head = {"policy": self.raw["policy"]}
        for group in ("utilization", "system"):
            for k, v in self.raw[group].items():
                head["%s.%s" % (group, k)] = v
        return [dict(head, **{"tenant." + k: v for k, v in flat(t).items()})
                for t in self.raw["tenants"]]


def flat(d, prefix=""):
    """A nested dict as one level of dotted keys."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


class Runs(list):
    """Several policies' runs of one setting (policy="all" or a list): a
    list of Run, and the per-policy table."""

    def to_pandas(self):
        """One row per policy and tenant: the policy, its utilization.* and
        system.* figures, and the tenant's (tenant.*), as `run --policy
        all` tabulates them."""
        pd = _pandas()
        return pd.DataFrame([row for r in self for row in r._policy_rows()])


class Profile(Record):
    """One request of a model, operator by operator (`profile --format
    json`): .ops, .totals, ..."""

    def to_pandas(self):
        """One row per operator."""
        return _pandas().DataFrame(self.raw["ops"])


_KEYS = ("tenants", "policy", "npu", "priority", "requests", "warmup", "seed", "contention",
         "attribution", "preempt", "check", "max_events")


def settings_of(settings=None, **kw):
    """The settings object (docs/formats.md, "Run settings") of a call:
    `settings` (a dict, a run's report, a Run, or the path of a JSON file)
    with the keywords over it.  Keywords are the settings' keys: tenants,
    policy (a name, "all" or a list), npu (a preset, a JSON file or a dict of
    NPU fields over "base"), priority, requests, warmup, seed, contention,
    attribution, preempt, check, max_events, a policy parameter by its flat
    key (pmt_slice_us=500); params={"pmt.slice_us": 500} and
    npu_fields={"hbm_gbps": 660} for dotted names."""
    if settings is None:
        s = {}
    elif isinstance(settings, Run):
        s = dict(settings.raw["settings"])
    elif isinstance(settings, (str, os.PathLike)):
        with open(settings, encoding="utf-8") as f:
            s = json.load(f)
    else:
        s = dict(settings)
    if "version" in s and "settings" in s:  # a report
        s = dict(s["settings"])
    params = kw.pop("params", None) or {}
    npu_fields = kw.pop("npu_fields", None) or {}
    if kw.get("tenants") is not None and "mix" in s:
        del s["mix"]
    for k, v in kw.items():
        if v is not None:
            s[k] = list(v) if k in ("tenants", "priority") else v
    s.update(params)
    s.update({"npu." + k: v for k, v in npu_fields.items()})
    return s


def run(settings=None, *, tenants=None, policy=None, **kw):
    """Runs tenants sharing one NPU and returns the report: a Run, or Runs
    for several policies.  Same keys as `v10sim run --config` (see
    settings_of); a bad one raises V10Error with the library's message."""
    origin = str(settings) if isinstance(settings, (str, os.PathLike)) else "v10sim.run"
    s = settings_of(settings, tenants=tenants, policy=policy, **kw)
    text = _lib.text_call(_lib.lib.v10_run_json, json.dumps(s).encode(), origin.encode())
    doc = json.loads(text)
    return Runs(Run(d) for d in doc) if isinstance(doc, list) else Run(doc)


def profile(model, npu=None, batch=None):
    """One request of `model` (a built-in name, a trace CSV or an ONNX file)
    on `npu` (a preset or JSON file; default v10-isca23), per operator."""
    spec = model if batch is None else "%s:batch=%d" % (model, batch)
    text = _lib.text_call(_lib.lib.v10_profile_json, spec.encode(),
                          None if npu is None else str(npu).encode())
    return Profile(json.loads(text))


def sweep(spec, out=None, jobs=None, resume=False):
    """Runs a sweep (docs/sweep.md; `spec` a dict, JSON text or a file's
    path) through the same store as `v10sim sweep` and returns its
    results.csv as a DataFrame: one row per point.  `out` keeps the result
    folder (default: a temporary one, removed); `jobs` threads (default:
    the CPUs); `resume` continues the sweep recorded in `out`."""
    pd = _pandas()
    origin = "v10sim.sweep"
    if isinstance(spec, dict):
        text = json.dumps(spec)
    elif isinstance(spec, os.PathLike) or (isinstance(spec, str) and
                                           not spec.lstrip().startswith("{")):
        origin = str(spec)
        with open(spec, encoding="utf-8") as f:
            text = f.read()
    else:
        text = spec
    lib = _lib.lib
    err = _lib.Err()
    s = _lib.ctypes.c_void_p()
    if lib.v10_sweep_parse(text.encode(), origin.encode(), _lib.ctypes.byref(s),
                           _lib.ctypes.byref(err)):
        _lib.fail(err)
    tmp = None if out is not None else tempfile.mkdtemp(prefix="v10sim-sweep-")
    folder = str(out) if out is not None else tmp
    st = _lib.ctypes.c_void_p()
    try:
        if out is not None:
            os.makedirs(folder, exist_ok=True)
        if lib.v10_sweep_store_open(folder.encode(), s, int(bool(resume)), _lib.ctypes.byref(st),
                                    _lib.ctypes.byref(err)):
            _lib.fail(err)
        threads = jobs or os.cpu_count() or 1
        if lib.v10_sweep_run_local(s, st, int(threads), None, _lib.ctypes.byref(err)) or \
                lib.v10_sweep_store_finish(st, _lib.ctypes.byref(err)):
            _lib.fail(err)
        lib.v10_sweep_store_close(st)
        st = None
        return pd.read_csv(os.path.join(folder, "results.csv"))
    finally:
        if st:
            lib.v10_sweep_store_close(st)
        lib.v10_sweep_destroy(s)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
