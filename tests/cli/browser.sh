#!/usr/bin/env bash
# repro's and llm-study's report.html (the --quick outputs cli_repro and
# cli_llm_study keep: ctest fixtures repro_out and llm_out) opened in
# headless Chromium (tests/browser/check_report.py): no console error, no
# failed load, every figure an image that renders; a screenshot of each is
# kept in build*/test-artifacts/.  Then the check must fail on copies with
# one figure's image broken (an <img> whose file is missing, an SVG
# emptied) and with a console error.
source "$(dirname "$0")/lib.sh"
out=${V10_TEST_OUT:?"run by ctest (it sets V10_TEST_OUT; fixtures repro_out and llm_out)"}
py=${V10_PYTHON:-/usr/bin/python3}
check() { "$py" tests/browser/check_report.py "$@"; }

for r in repro llm-study; do
    [ -f "$out/$r/report.html" ] || fail "$out/$r/report.html missing (cli_${r/-/_} keeps it)"
    check "$out/$r/report.html" "$out/$r-report.png"
    [ -s "$out/$r-report.png" ] || fail "no screenshot of $r's report"
done

# Broken copies of repro's report, beside the original (same folder).
"$py" - "$out/repro/report.html" "$out/repro" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index("<svg")
j = s.index("</svg>", i) + len("</svg>")
open(sys.argv[2] + "/broken-img.html", "w").write(
    s[:i] + '<img src="missing-figure.svg" alt="a figure">' + s[j:])
k = s.index(">", i) + 1  # the first SVG's element kept, its drawing gone
open(sys.argv[2] + "/broken-svg.html", "w").write(s[:k] + s[j - len("</svg>"):])
open(sys.argv[2] + "/console.html", "w").write(
    s.replace("</body>", "<script>console.error('planted error')</script></body>"))
PY
expect_fail() { # FILE, what its message must say
    if check "$out/repro/$1" "$out/$1.png" 2> "$out/$1.err"; then
        fail "$1 was accepted"
    fi
    grep -qF -- "$2" "$out/$1.err" || fail "$1: expected '$2', got: $(cat "$out/$1.err")"
}
expect_fail broken-img.html "image not loaded: missing-figure.svg"
expect_fail broken-svg.html "its SVG draws nothing"
expect_fail console.html "console.error: planted error"
rm -f "$out/repro"/broken-*.html "$out/repro/console.html"
echo "browser: both reports load cleanly in Chromium; a broken image and a console error fail"
