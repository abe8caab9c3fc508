#!/usr/bin/env bash
# llm_study.sh — `v10sim llm-study --quick` (docs/llm.md, "The LLM study"):
# the CSV has one row per service x partner x policy on v10-isca23 plus each
# service alone, with its columns; TTFT/TPOT percentiles are ordered; the
# load rule puts each server's solo offered load near the 50% target; the
# six SVGs and summary.md are whole, summary.md's mean ratios over alone are
# the CSV's; -j 1 and -j 2 give byte-identical
# files; bad options and a missing trace directory are errors naming them.
# Usage: llm_study.sh PATH/TO/v10sim   (run from the repository root by ctest)
set -euo pipefail

bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" llm-study --help | grep -q -- "--trace-dir" || fail "--help without --trace-dir"

"$bin" llm-study --quick -j 1 --out "$tmp/a" >"$tmp/a.txt" 2>/dev/null
"$bin" llm-study --quick -j 2 --out "$tmp/b" >/dev/null 2>&1
diff -r "$tmp/a" "$tmp/b" >/dev/null || fail "-j 1 and -j 2 differ"
grep -q "82 simulations" "$tmp/a.txt" || fail "expected 82 simulations: $(cat "$tmp/a.txt")"

python3 - "$tmp/a" <<'PY'
import csv, math, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "llm_study.csv"))))
cols = ("npu service partner policy rate_scale load_alone busy_alone llm_requests ttft_p50_ms ttft_p95_ms "
        "ttft_p99_ms tpot_p50_ms tpot_p95_ms tpot_p99_ms tokens_per_s slo_ttft slo_tpot "
        "partner_rps partner_np partner_tokens_per_s util_sa util_vu").split()
assert list(rows[0].keys()) == cols, list(rows[0].keys())
models = "bert dlrm efficientnet maskrcnn mnist ncf resnet50 resnet-rs retinanet shapemask transformer".split()
assert len(rows) == 2 + 2 * 12 * 3, len(rows)
alone = [r for r in rows if r["partner"] == "alone"]
assert [(r["service"], r["policy"]) for r in alone] == [("conv", "solo"), ("code", "solo")]
for r in alone:
    rho, b = float(r["load_alone"]), float(r["busy_alone"])
    assert abs(rho - 0.5) < 0.02, ("load rule", r["service"], rho)
    assert 0 < b <= 1, ("busy", r["service"], b)
seen = set()
for r in rows:
    assert r["npu"] == "v10-isca23" and int(r["llm_requests"]) == 10, r
    t = [float(r[k]) for k in ("ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms")]
    p = [float(r[k]) for k in ("tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms")]
    assert 0 < t[0] <= t[1] <= t[2] and 0 < p[0] <= p[1] <= p[2], r
    assert float(r["tokens_per_s"]) > 0
    scale = [a["rate_scale"] for a in alone if a["service"] == r["service"]][0]
    assert r["rate_scale"] == scale, r                # the pair runs at the alone scale
    if r["partner"] == "alone":
        continue
    seen.add((r["service"], r["partner"], r["policy"]))
    if r["partner"].startswith("llm-"):
        assert r["partner"] == "llm-" + ("code" if r["service"] == "conv" else "conv")
        assert math.isnan(float(r["partner_np"])) and float(r["partner_tokens_per_s"]) > 0
    else:
        assert r["partner"] in models and float(r["partner_np"]) > 0, r
        assert math.isnan(float(r["partner_tokens_per_s"]))
assert len(seen) == 72, len(seen)
for svc in ("conv", "code"):
    for stem in ("ttft_p95", "tpot_p95", "partner_np"):
        s = open(os.path.join(d, f"{stem}_{svc}_v10-isca23.svg")).read()
        assert s.lstrip().startswith(("<?xml", "<svg")) and s.rstrip().endswith("</svg>"), stem
md = open(os.path.join(d, "summary.md")).read()
assert md.endswith("\n") and "## llm-conv on v10-isca23" in md and "## llm-code on v10-isca23" in md
assert "V10-Full vs PMT" in md
# summary.md's figures are the CSV's: each policy's mean TTFT/TPOT p95 over alone
names = {"pmt": "PMT", "v10-fair": "V10-Fair", "v10-full": "V10-Full"}
for svc in ("conv", "code"):
    a = [r for r in alone if r["service"] == svc][0]
    sec = md.split("## llm-%s on v10-isca23" % svc)[1].split("## ")[0]
    for pol, name in names.items():
        pr = [r for r in rows if r["service"] == svc and r["policy"] == pol]
        m = [sum(float(r[k]) for r in pr) / len(pr) / float(a[k]) for k in ("ttft_p95_ms", "tpot_p95_ms")]
        want = "* %s: TTFT p95 on average %.2fx alone, TPOT p95 %.2fx alone." % (name, m[0], m[1])
        assert want in sec, (want, sec)
PY
[ "$(ls "$tmp/a" | wc -l)" -eq 8 ] || fail "expected 8 files: $(ls "$tmp/a")"

# ---- errors -----------------------------------------------------------------
err() { # err EXPECTED_TEXT ARGS...: non-zero exit, the text on stderr
    local want=$1; shift
    if "$bin" llm-study "$@" >/dev/null 2>"$tmp/err"; then fail "accepted: $*"; fi
    grep -q -- "$want" "$tmp/err" || fail "$*: stderr lacks '$want': $(cat "$tmp/err")"
}
err "--bogus" --bogus
err "--busy" --busy 2 --out "$tmp/e"
err "--requests" --requests 0 --out "$tmp/e"
err "/nonexistent/AzureLLMInferenceTrace_conv.csv" --quick --trace-dir /nonexistent --out "$tmp/e"
[ -z "$(ls "$tmp/e" 2>/dev/null)" ] || fail "a failed run left files"
echo "llm_study.sh: ok"
