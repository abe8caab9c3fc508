#!/usr/bin/env bash
# The user docs tell today's truth:
#  - every line docs/repro.md quotes from summary.md (its ```summary.md
#    blocks) is a line of a fresh `repro --quick`'s summary.md (the one
#    cli_repro keeps: ctest fixture repro_out), and its "Where we differ"
#    section states no ratio or percentage outside such a block;
#  - no user doc names an issue number ("issue 12", "Issue 22");
#  - the figures the docs give for the VU context switch are the one
#    `v10sim npu` prints;
#  - docs/llm.md does not open as a progress report, docs/onnx.md has no
#    "For the README" block.
source "$(dirname "$0")/lib.sh"

hits=$(grep -rniE "issue [0-9]" docs README.md || true)
[ -z "$hits" ] || fail "user docs name issue numbers (say what the program does, not how it came to be):
$hits"
grep -q "For the README" docs/onnx.md && fail "docs/onnx.md still has its 'For the README' block"
head -5 docs/llm.md | grep -qi "built so far" && fail "docs/llm.md opens as a progress report"

vu=$("$bin" npu | awk '$1 == "vu_switch_cycles" {print $2}')
[ -n "$vu" ] || fail "v10sim npu prints no vu_switch_cycles"
for f in docs/design.md docs/architecture.md; do
    grep -q "VU $vu cycles" "$f" || fail "$f: no 'VU $vu cycles' (v10sim npu: vu_switch_cycles $vu)"
    bad=$(grep -noE "VU [0-9]+ cycles" "$f" | grep -v "VU $vu cycles" || true)
    [ -z "$bad" ] || fail "$f: a VU switch that is not v10sim npu's $vu cycles: $bad"
done

# docs/repro.md against a fresh repro --quick.  The sanitizer build studies
# the zoo set (tests/cli/repro.sh), whose summary.md is not the one quoted.
out=${V10_TEST_OUT:?"run by ctest (it sets V10_TEST_OUT; fixture repro_out)"}/repro
case "${V10_SANITIZED:-OFF}" in
ON | 1) echo "docs: issue numbers, VU switch ok; repro.md's quotes are checked by the strict build"
        exit 0 ;;
esac
[ -f "$out/summary.md" ] || fail "$out/summary.md missing (cli_repro keeps it)"
python3 - docs/repro.md "$out/summary.md" <<'PY'
import re, sys
doc_path, md_path = sys.argv[1:]
doc, fresh = open(doc_path).read(), open(md_path).read().splitlines()
blocks = re.findall(r"^```summary\.md\n(.*?)^```$", doc, re.M | re.S)
assert blocks, "docs/repro.md quotes no ```summary.md block"
quoted = [l for b in blocks for l in b.splitlines() if l.strip()]
missing = [l for l in quoted if l not in fresh]
if missing:
    sys.exit("docs.sh: docs/repro.md quotes %d line(s) of summary.md that a fresh `repro "
             "--quick` no longer prints; copy today's lines from %s into docs/repro.md's "
             "```summary.md blocks (and check the prose around them still holds):\n  %s"
             % (len(missing), md_path, "\n  ".join(missing)))
# "Where we differ": figures only inside the quoted blocks.
sec = doc.split("## Where we differ", 1)[1].split("\n## ", 1)[0]
prose = re.sub(r"^```summary\.md\n.*?^```$", "", sec, flags=re.M | re.S)
loose = re.findall(r"[×÷][0-9]+\.[0-9]+|[0-9]+\.[0-9]+ ?%", prose)
assert not loose, "docs/repro.md, 'Where we differ': figures outside the quoted blocks " \
                  "(quote them from summary.md instead): %s" % loose
print("docs: %d lines of docs/repro.md match a fresh repro --quick" % len(quoted))
PY
echo "docs: no issue numbers, VU switch $vu cycles as v10sim npu prints, repro.md's quotes current"
