#!/usr/bin/env bash
# The core stays readable: no function in src/core longer than 80 lines and no file longer
# than 500 (the cost model is one small module per piece of physics, src/core/cost/). A
# function is counted from its opening brace in column 0 to its closing one.
. "$(dirname "$0")/_lib.sh"

long=$(for f in src/core/*.[ch] src/core/cost/*.[ch]; do
    awk -v F="$f" '/^\{/ { s = NR; name = prev }
        /^\}/ { if (s) { n = NR - s + 1; if (n > 80) printf "%s:%d %s (%d lines)\n", F, s, name, n; s = 0 } }
        { prev = $0 }' "$f"
done)
if [ -z "$long" ]; then
    pass "core size: every function in src/core is at most 80 lines"
else
    fail "core size: every function in src/core is at most 80 lines" "longer:"
    printf '%s\n' "$long" | sed 's/^/    /'
fi
big=$(wc -l src/core/*.[ch] src/core/cost/*.[ch] | awk '$2 != "total" && $1 > 500 { print $2 " (" $1 " lines)" }')
if [ -z "$big" ]; then
    pass "core size: every file in src/core is at most 500 lines"
else
    fail "core size: every file in src/core is at most 500 lines" "$big"
fi
n=$(ls src/core/cost/*.c | wc -l)
check "core size: the cost model is split into modules ($n files in src/core/cost)" [ "$n" -ge 10 ]
