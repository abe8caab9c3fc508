#!/usr/bin/env bash
# llm_study.sh — `v10sim llm-study --quick` (docs/llm.md, "The LLM study"):
# the CSV has one row per service x partner x policy on v10-isca23 plus each
# service alone, with its columns; TTFT/TPOT percentiles are ordered; the
# load rule puts each server's solo offered load near the 50% target; the
# SVGs and summary.md are whole XML / text, summary.md's mean ratios over
# alone are the CSV's, and so is each policy's fairness beside the isca23
# partners; the CDF plots have five curves (alone, four policies, the
# last V10-Full with preempt=ready, pooled over the 11 isca23 partners:
# 110 requests), rising, and
# llm_cdf.csv's points are the CSV's percentiles; the tokens/s scatter has
# one point per isca23 partner and policy at the CSV's figures; tokens/s
# over the active span is at least over the window; an LLM partner serves
# the requests the overlap rule picks from the traces; -j 1 and -j 2 give
# byte-identical files; bad options and a missing trace directory are
# errors naming them.
# Usage: llm_study.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"

"$bin" llm-study --help | grep -q -- "--trace-dir" || fail "--help without --trace-dir"

"$bin" llm-study --quick -j 1 --out "$tmp/a" >"$tmp/a.txt" 2>/dev/null
# from another folder: the default traces are the binary's own (trace=@azure_conv_200)
(cd "$tmp" && "$bin" llm-study --quick -j 2 --out b >/dev/null 2>&1) ||
    fail "llm-study --quick fails outside the repository's root"
diff -r "$tmp/a" "$tmp/b" >/dev/null || fail "-j 1 and -j 2 differ"
# 10 solo runs of the load rule (5 steps x 2 services), 2 x 12 x 4 pairs,
# and one solo run of the conversation service's requests in its LLM pair
# (the overlap rule)
grep -q "107 simulations" "$tmp/a.txt" || fail "expected 107 simulations: $(cat "$tmp/a.txt")"
# --quick says, as repro does, that its figures are noisier and what they do not support
grep -q "do not support comparing policies' tails" "$tmp/a.txt" || fail "no --quick caveat on stdout"
grep -q "^\*\*--quick: a smoke test, not a result.\*\*  With 10 requests a run" "$tmp/a/summary.md" ||
    fail "no --quick caveat in summary.md"

python3 - "$tmp/a" <<'PY'
import csv, math, os, re, sys
import xml.etree.ElementTree as ET
from datetime import datetime
d = sys.argv[1]
def arrivals(svc):  # the excerpt's arrival times from its first row, s
    t = []
    for row in csv.DictReader(open(f"tests/data/llm/azure_{svc}_200.csv")):
        day, frac = row["TIMESTAMP"].split(".")
        t.append(datetime.strptime(day, "%Y-%m-%d %H:%M:%S").timestamp() + int(frac) / 10 ** len(frac))
    return [x - t[0] for x in t]
rows = list(csv.DictReader(open(os.path.join(d, "llm_study.csv"))))
cols = ("npu service partner policy rate_scale load_alone busy_alone llm_requests ttft_p50_ms ttft_p95_ms "
        "ttft_p99_ms tpot_p50_ms tpot_p95_ms tpot_p99_ms tokens_per_s tokens_per_s_active slo_ttft slo_tpot "
        "partner_rps partner_np partner_tokens_per_s partner_requests alone_ttft_p95_ms alone_tpot_p95_ms "
        "util_sa util_vu j_per_token").split()
assert list(rows[0].keys()) == cols, list(rows[0].keys())
models = "bert dlrm efficientnet maskrcnn mnist ncf resnet50 resnet-rs retinanet shapemask transformer".split()
assert len(rows) == 2 + 2 * 12 * 4, len(rows)
alone = [r for r in rows if r["partner"] == "alone"]
assert [(r["service"], r["policy"]) for r in alone] == [("conv", "solo"), ("code", "solo")]
for r in alone:
    rho, b = float(r["load_alone"]), float(r["busy_alone"])
    assert abs(rho - 0.5) < 0.02, ("load rule", r["service"], rho)
    assert 0 < b <= 1, ("busy", r["service"], b)
seen = set()
for r in rows:
    assert r["npu"] == "v10-isca23", r
    assert int(r["llm_requests"]) == 10 or r["partner"].startswith("llm-"), r
    t = [float(r[k]) for k in ("ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms")]
    p = [float(r[k]) for k in ("tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms")]
    assert 0 < t[0] <= t[1] <= t[2] and 0 < p[0] <= p[1] <= p[2], r
    assert float(r["tokens_per_s"]) > 0
    assert float(r["tokens_per_s_active"]) >= float(r["tokens_per_s"]) * (1 - 1e-9), r
    assert float(r["j_per_token"]) > 0, r  # docs/energy.md
    scale = [a["rate_scale"] for a in alone if a["service"] == r["service"]][0]
    assert r["rate_scale"] == scale, r                # the pair runs at the alone scale
    if r["partner"] == "alone":
        continue
    seen.add((r["service"], r["partner"], r["policy"]))
    if r["partner"].startswith("llm-"):
        assert r["partner"] == "llm-" + ("code" if r["service"] == "conv" else "conv")
        assert math.isnan(float(r["partner_np"])) and float(r["partner_tokens_per_s"]) > 0
        # the overlap rule, from the traces and the alone rows' scales only:
        # both take the fewest first requests reaching the shorter span
        sc = {a["service"]: float(a["rate_scale"]) for a in alone}
        T = min(arrivals(v)[9] / sc[v] for v in sc)
        want = {}
        for v in sc:
            t, k = arrivals(v), 1
            while k < len(t) and t[k - 1] / sc[v] < T:
                k += 1
            want[v] = k
        other = r["partner"][4:]
        assert (int(r["llm_requests"]), int(r["partner_requests"])) == (want[r["service"]], want[other]), (r, want)
        assert min(want.values()) < 10 and max(want.values()) == 10, want
    else:
        assert r["partner"] in models and float(r["partner_np"]) > 0, r
        assert math.isnan(float(r["partner_tokens_per_s"])) and int(r["partner_requests"]) == 0
        a = [x for x in alone if x["service"] == r["service"]][0]
        assert (r["alone_ttft_p95_ms"], r["alone_tpot_p95_ms"]) == (a["ttft_p95_ms"], a["tpot_p95_ms"]), r
assert len(seen) == 96, len(seen)
for svc in ("conv", "code"):
    for stem in ("ttft_p95", "tpot_p95", "partner_np", "ttft_cdf", "tpot_cdf", "tokens_np"):
        s = open(os.path.join(d, f"{stem}_{svc}_v10-isca23.svg")).read()
        assert s.lstrip().startswith(("<?xml", "<svg")) and s.rstrip().endswith("</svg>"), stem
        ET.fromstring(s.encode())  # well-formed
NS = "{http://www.w3.org/2000/svg}"
pols = ("pmt", "v10-fair", "v10-full", "v10-full+ready")
names = {"pmt": "PMT", "v10-fair": "V10-Fair", "v10-full": "V10-Full",
         "v10-full+ready": "V10-Full, preempt=ready"}
for svc in ("conv", "code"):
    a = [r for r in alone if r["service"] == svc][0]
    iso = [r for r in rows if r["service"] == svc and r["partner"] in models]
    for m in ("ttft", "tpot"):
        root = ET.parse(os.path.join(d, f"{m}_cdf_{svc}_v10-isca23.svg")).getroot()
        lines = root.findall(NS + "polyline")
        assert len(lines) == 5, (svc, m, len(lines))
        for pl in lines:  # a CDF rises: x non-decreasing, y (pixels) non-increasing
            pts = [tuple(map(float, p.split(","))) for p in pl.get("points").split()]
            assert len(pts) >= 2 and all(q[0] >= p[0] and q[1] <= p[1] for p, q in zip(pts, pts[1:])), pts
        legend = [t.text for t in root.iter(NS + "text")]
        assert "alone (10 requests)" in legend or m == "tpot", legend
        if m == "ttft":
            for pol in pols:
                n = sum(int(r["llm_requests"]) for r in iso if r["policy"] == pol)
                assert n == 110 and "%s (%d requests)" % (names[pol], n) in legend, legend
    # the scatter: one marker per isca23 partner and policy, at the CSV's figures
    root = ET.parse(os.path.join(d, f"tokens_np_{svc}_v10-isca23.svg")).getroot()
    titles = [t.text for t in root.iter(NS + "title")]
    assert len(titles) == 44, len(titles)
    for r in iso:
        name = names[r["policy"]]
        want = "%s / %s: %.6g, %.6g" % (name, r["partner"], float(r["partner_np"]),
                                        float(r["tokens_per_s_active"]) / float(a["tokens_per_s_active"]))
        assert want in titles, (want, titles[:3])
# llm_cdf.csv: each curve rises to 1; alone's points are its percentiles
cdf = list(csv.DictReader(open(os.path.join(d, "llm_cdf.csv"))))
assert list(cdf[0].keys()) == "npu service metric curve requests fraction ms".split()
curves = {}
for c in cdf:
    curves.setdefault((c["service"], c["metric"], c["curve"]), []).append((float(c["fraction"]), float(c["ms"])))
assert len(curves) == 2 * 2 * 5, sorted(curves)
for key, pts in curves.items():
    assert pts[-1][0] == 1.0 and all(q[0] > p[0] and q[1] >= p[1] for p, q in zip(pts, pts[1:])), key
for a in alone:
    for m in ("ttft", "tpot"):
        pts = dict(curves[(a["service"], m, "alone")])
        n = round(1 / min(pts))  # requests in the curve
        for q, col in ((0.5, "p50"), (0.95, "p95"), (0.99, "p99")):
            rank = math.ceil(q * n)
            got = [ms for f, ms in pts.items() if abs(f - rank / n) < 1e-9]
            assert got and abs(got[0] - float(a[f"{m}_{col}_ms"])) < 1e-5, (a["service"], m, col, got)
md = open(os.path.join(d, "summary.md")).read()
assert md.endswith("\n") and "## llm-conv on v10-isca23" in md and "## llm-code on v10-isca23" in md
assert "V10-Full vs PMT" in md
# summary.md's figures are the CSV's: each policy's mean TTFT/TPOT p95 over
# alone over the same requests
for svc in ("conv", "code"):
    a = [r for r in alone if r["service"] == svc][0]
    sec = md.split("## llm-%s on v10-isca23" % svc)[1].split("## ")[0]
    for pol, name in names.items():
        pr = [r for r in rows if r["service"] == svc and r["policy"] == pol]
        m = [sum(float(r[k]) / float(r["alone_" + k]) for r in pr) / len(pr) for k in ("ttft_p95_ms", "tpot_p95_ms")]
        want = "* %s: TTFT p95 on average %.2fx alone, TPOT p95 %.2fx alone;" % (name, m[0], m[1])
        assert want in sec, (want, sec)
        # fairness beside the isca23 partners: the service's tokens/s over
        # its active span against alone, the partner's normalized progress
        iso = [r for r in pr if r["partner"] in models]
        np_ = [(float(r["tokens_per_s_active"]) / float(a["tokens_per_s_active"]),
                float(r["partner_np"])) for r in iso]
        fair = [min(x) / max(x) for x in np_]
        want = "* %s, fairness beside the 11 isca23 partners" % name
        line = [l for l in sec.splitlines() if l.startswith(want)]
        assert len(line) == 1, (want, sec)
        tail = "least progress %.3f" % min(min(x) for x in np_)
        assert tail in line[0] and line[0].endswith(
            "mean fairness %.3f, least %.3f." % (sum(fair) / len(fair), min(fair))), (line, tail)
PY
[ "$(ls "$tmp/a" | wc -l)" -eq 16 ] || fail "expected 16 files: $(ls "$tmp/a")"
# report.html: summary.md and every plot inline (a browser opens it: browser.sh)
[ "$(grep -c '<figure>' "$tmp/a/report.html")" -eq "$(ls "$tmp/a"/*.svg | wc -l)" ] ||
    fail "report.html does not hold every SVG"
if [ -n "${V10_KEEP_OUT:-}" ]; then # for tests/cli/browser.sh (ctest fixture llm_out)
    rm -rf "$V10_KEEP_OUT" && mkdir -p "$(dirname "$V10_KEEP_OUT")" && cp -r "$tmp/a" "$V10_KEEP_OUT"
fi

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
err "--trace-dir /nonexistent must hold the full Azure traces" --quick --trace-dir /nonexistent \
    --out "$tmp/e"
[ -z "$(ls "$tmp/e" 2>/dev/null)" ] || fail "a failed run left files"
echo "llm_study.sh: ok"
