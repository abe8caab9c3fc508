#!/bin/sh
# pgo-train.sh — the training runs of the profile-guided build (`make`,
# docs/benchmarks.md, "Profile-guided build"): an instrumented v10sim runs
# what users run, and GCC lays out the release build by the branch and call
# counts it records.  The counts decide only code layout, inlining and
# branch order: every output is the same to the byte with or without them.
#
# The runs are the CLI's, not repro's studies (which are timed against the
# build): pairs under every policy, a mixed SA/VU pair, short V10 slices,
# 8 and 16 tenants, the architecture-derived models, an LLM server.  About
# 5 s instrumented.  Code no run reaches is compiled as without a profile
# (-fprofile-partial-training).
#
# Usage: tools/pgo-train.sh INSTRUMENTED_V10SIM  (from the repository root)
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 INSTRUMENTED_V10SIM" >&2
    exit 2
fi
b=$1
# Without address randomization where the host allows it (setarch -R,
# util-linux): some counts are pointers' bits (alignment), and a training
# at fixed addresses gives the same counts each time, hence the same binary.
norand=
if setarch -R true 2>/dev/null; then
    norand="setarch -R"
fi
run() { $norand "$b" run "$@" >/dev/null; }
# One policy a process: a run of several policies runs them on threads,
# and the counts are kept without atomics (-fprofile-update=single).
for p in fcfs pmt prema spatial v10-base v10-fair v10-full; do
    run --tenant isca23/bert --tenant isca23/ncf --policy $p --requests 4
    run --tenant isca23/efficientnet --tenant isca23/resnet50 --policy $p --requests 30
done
run --tenant isca23/dlrm --tenant isca23/resnet50 --slice-cycles 2048 --requests 20
run --tenant isca23/resnet-rs --tenant isca23/maskrcnn --no-contention --requests 4
# shellcheck disable=SC2046 # one --tenant per word
run $(cat bench/t16.txt) --requests 1 --warmup 0 --npu v10-isca23-4x
run --tenant resnet50 --tenant efficientnet --tenant bert --tenant ncf --tenant dlrm \
    --tenant mnist --tenant transformer --tenant retinanet --npu v10-isca23-8x --requests 2
run --tenant bert --tenant ncf --policy pmt --requests 4
run --tenant bert --tenant ncf --requests 4
run --tenant llm/llama3.2-1b:trace=tests/data/llm/azure_conv_200.csv:requests=20 \
    --tenant resnet50 --requests 20
