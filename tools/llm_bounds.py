#!/usr/bin/env python3
"""llm_bounds.py BIN [--op-mapping one|all] — docs/llm.md's validation table:
for each preset LLM on v10-isca23 and tpuv4-core, a lone request's TTFT (its
prefill stream, `v10sim profile llm/MODEL:prefill=P`) and the decode
iteration time (TPOT) at batch 1 and 32 over 1024-token contexts
(`decode=Bx1024`), each beside its roofline bound max(FLOPs / peak, bytes /
HBM bandwidth):
  prefill  FLOPs = 2 x linear params x P + 2 x LM head + causal attention
           (2 x layers x heads x head_dim x P^2); bytes = the weights read
           once + the P tokens' K and V written;
  decode   FLOPs = B x (2 x matmul params + 4 x layers x heads x head_dim x
           1024); bytes = the weights + B x 1024 tokens of K and V read.
Peak = sa_count x sa_rows x sa_cols x 2 FLOPs per cycle (bf16 MACs).
Each NPU maps an operator onto its engines as its preset says (op_mapping:
"one" SA on v10-isca23, all four on tpuv4-core), which `profile` honours;
--op-mapping one|all overrides it on both NPUs (docs/design.md)."""
import json, os, subprocess, sys, tempfile

BIN = sys.argv[1]
MAP = sys.argv[3] if len(sys.argv) == 4 and sys.argv[2] == "--op-mapping" else None
if (sys.argv[2:] and MAP not in ("one", "all")) or len(sys.argv) < 2:
    sys.exit("usage: llm_bounds.py BIN [--op-mapping one|all]")
TMP = tempfile.mkdtemp()
# The presets (src/workloads/llm.c, from each model's HuggingFace config.json).
M = {"gpt2-xl": dict(L=48, h=1600, H=25, KV=25, d=64, f=6400, V=50257, ctx=1024, mats=2, tied=1),
     "llama3.2-1b": dict(L=16, h=2048, H=32, KV=8, d=64, f=8192, V=128256, ctx=131072, mats=3, tied=1),
     "llama2-7b": dict(L=32, h=4096, H=32, KV=32, d=128, f=11008, V=32000, ctx=4096, mats=3, tied=0),
     "llama3-8b": dict(L=32, h=4096, H=32, KV=8, d=128, f=14336, V=128256, ctx=8192, mats=3, tied=0)}

def run(*args):
    return json.loads(subprocess.run([BIN, *args, "--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)

def npu_file(npu):
    """The preset, or a JSON file over it with --op-mapping's value."""
    if not MAP:
        return npu
    path = os.path.join(TMP, "%s-%s.json" % (npu, MAP))
    with open(path, "w") as f:
        json.dump({"base": npu, "name": "%s-%s" % (npu, MAP), "op_mapping": MAP}, f)
    return path

def ms(npu, spec):
    """The stream's latency alone, or None if the weights and KV do not fit."""
    try:
        return run("profile", "llm/" + spec, "--npu", npu_file(npu))["totals"]["latency_us"] / 1e3
    except subprocess.CalledProcessError:
        return None

worst = []
def cell(t, bound):
    if t is None:
        return "does not fit"
    worst.append(t / bound)
    return "%.1f / %.1f (x%.2f)" % (t, bound, t / bound)

print("| NPU | model | TTFT 128 | TTFT 1024 | TTFT 4096 | TPOT b=1 | TPOT b=32 |")
print("|---|---|---|---|---|---|---|")
for npu in ("v10-isca23", "tpuv4-core"):
    n = run("npu", "--npu", npu)
    peak = n["sa_count"] * n["sa_rows"] * n["sa_cols"] * 2 * n["clock_mhz"] * 1e6  # FLOP/s
    bw = n["hbm_gbps"] * 1e9
    for name, c in M.items():
        lin = c["L"] * (c["h"] * (c["H"] + 2 * c["KV"]) * c["d"] + c["H"] * c["d"] * c["h"]
                        + c["mats"] * c["h"] * c["f"])
        head = c["V"] * c["h"]
        kvpt = 2 * c["L"] * c["KV"] * c["d"] * 2
        cells = []
        for P in (128, 1024, 4096):
            if P > c["ctx"]:
                cells.append("—")
                continue
            fl = 2 * lin * P + 2 * head + 2 * c["L"] * c["H"] * c["d"] * P * P
            by = 2 * (lin + head) + P * kvpt
            bound = max(fl / peak, by / bw) * 1e3
            cells.append(cell(ms(npu, "%s:prefill=%d" % (name, P)), bound))
        for B in (1, 32):
            fl = B * (2 * (lin + head) + 4 * c["L"] * c["H"] * c["d"] * 1024)
            by = 2 * (lin + head) + B * 1024 * kvpt
            bound = max(fl / peak, by / bw) * 1e3
            cells.append(cell(ms(npu, "%s:decode=%dx1024" % (name, B)), bound))
        print("| %s | %s | %s |" % (npu, name, " | ".join(cells)))
print("\nsmallest ratio to the bound: x%.2f, largest: x%.2f" % (min(worst), max(worst)))
