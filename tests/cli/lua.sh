#!/usr/bin/env bash
# Lua scripting (strata run, strata-lua(7)): the recipes in lua/ run and print sensible
# numbers; models built in Lua evaluate bit-identically to their YAML twins; strata.eval has
# the keys and numbers of `eval --json`; the sandbox stops loops, allocation bombs, io/os
# access and bytecode with clear messages; errors carry file:line; fuzzed API arguments
# never crash; the same script prints the same thing every run.
. "$(dirname "$0")/_lib.sh"

L=$T/lua
mkdir -p "$L"
script() { printf '%s\n' "$2" >"$L/$1"; }    # script NAME TEXT
run() { st run "$@"; }

# ---- the recipes -------------------------------------------------------------------------

run lua/vlm.lua
expect_rc "recipe vlm.lua: exit 0" 0
check "recipe vlm.lua: 56 layers (24 encoder + 32 decoder), 8.3 B parameters, 2 shapes" \
    grep -Eq '^model vlm-8b-vitl: 56 layers, 8\.3[0-9] B parameters, 2 layer shapes' "$OUT"
check "recipe vlm.lua: the encoder block is 1024 wide with a GELU MLP, the decoder 4096 with SwiGLU" awk '
    /block 1: dense x24 width 1024 +heads 16\/16 +of +64 +mlp +4096 gelu/ { e = 1 }
    /block 2: dense x32 width 4096 +heads 32\/8 +of 128 +mlp 14336 silu/ { d = 1 } END { exit !(e && d) }' "$OUT"
check "recipe vlm.lua: the light encoder layers shift the stage split past the even 28 + 28" awk '
    /^stage split: [0-9]+ \+ [0-9]+ layers/ { if ($3 > 28 && $3 + $5 == 56) ok = 1 } END { exit !ok }' "$OUT"
check "recipe vlm.lua: the encoder adds 0.32 B parameters (24 biased ViT-L layers 0.302 B, projector 0.021 B) and under 20% step time to llama3-8b" awk '
    /^the encoder adds 0\.32 B parameters, / { t = $7; sub(/%/, "", t); if (t + 0 > 0 && t + 0 < 20) ok = 1 }
    END { exit !ok }' "$OUT"
check "recipe vlm.lua: the plan is valid and fits, MFU in (10%, 70%)" awk '
    /valid true, peak/ { for (i = 1; i <= NF; i++) if ($i == "MFU") { m = $(i + 1) + 0 }
                         if (m > 10 && m < 70) ok = 1 } END { exit !ok }' "$OUT"

run lua/interleaved_moe.lua
expect_rc "recipe interleaved_moe.lua: exit 0" 0
check "recipe interleaved_moe.lua: 48 layers in 4 shapes, fewer active than total parameters" awk '
    /^model interleaved-moe-48l: 48 layers/ { gsub(/[(]/, ""); if ($5 + 0 > $8 + 0 && $8 + 0 > 0 && /4 layer shapes/) ok = 1 }
    END { exit !ok }' "$OUT"

run lua/search_tp_in_node.lua llama3-70b dgx-h100 16 8
expect_rc "recipe search_tp_in_node.lua: exit 0" 0
# columns: # nodes tp pp dp mbs recompute peak MFU tokens/s
check "recipe search_tp_in_node.lua: 8 ranked rows, every tp <= 8, nodes never decrease, peak <= 76 GiB" awk '
    /^ *[0-9]+ +[0-9]+ +[0-9]+ / { n++; if ($3 > 8 || $2 < last || $8 > 76) bad = 1; last = $2 }
    END { exit !(n == 8 && !bad) }' "$OUT"
check "recipe search_tp_in_node.lua: the filter removed the cross-node TP strategies" \
    grep -Eq '^considered [0-9]+ strategies: [1-9][0-9]* filtered out' "$OUT"

run lua/sweep_seq.lua
expect_rc "recipe sweep_seq.lua: exit 0" 0
# short sequences trade attention (slower than GEMMs) against per-micro-batch overheads,
# so MFU need not fall between 2K and 4K; from 8K on attention dominates and it must
check "recipe sweep_seq.lua: CSV header and 6 rows 2K..64K, MFU in (0, 1), falling from 8K on and below 2K at 64K" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["seq_length"]) for r in rows] == [2048 << i for i in range(6)], rows
mfu = [float(r["mfu"]) for r in rows]
assert all(0 < m < 1 for m in mfu) and mfu[2:] == sorted(mfu[2:], reverse=True) and mfu[-1] < mfu[0], mfu
assert all(int(r["seq_length"]) * int(r["global_batch"]) == 4 << 20 for r in rows)
' "$OUT"

run lua/max_micro_batch.lua
expect_rc "recipe max_micro_batch.lua: exit 0" 0
check "recipe max_micro_batch.lua: peak grows with the micro-batch; the answer fits, the next does not" awk '
    /^ +[0-9]+ +[0-9.]+ +(true|false)/ { if ($2 + 0 <= prev) bad = 1; prev = $2 + 0
                                        if ($3 == "true") fit = $1; else if (!over) over = $1 }
    /^largest micro-batch that fits: / { ans = $5 + 0 }
    END { exit !(!bad && ans == fit && over > ans && ans >= 1) }' "$OUT"

run lua/zero_levels.lua
expect_rc "recipe zero_levels.lua: exit 0" 0
check "recipe zero_levels.lua: model states fall at every ZeRO level, ZeRO 3 pays DP traffic" awk '
    /^ +[0-3] +[0-9]/ { st[$1] = $5 + 0; dp[$1] = $8 + 0 }
    END { exit !(st[0] > st[1] && st[1] > st[2] && st[2] > st[3] && dp[3] > dp[1]) }' "$OUT"
check "recipe zero_levels.lua: names the fastest level that fits" grep -Eq '^fastest that fits: ZeRO [0-3] ' "$OUT"

# every recipe: same output twice (determinism), and no stderr
same=1
for f in lua/*.lua; do
    st run "$f"
    cp "$OUT" "$T/first"
    [ -s "$ERR" ] && same=0
    st run "$f"
    cmp -s "$OUT" "$T/first" || same=0
done
check "recipes: each prints the same output on a second run, nothing on stderr" [ "$same" = 1 ]

# ---- models built in Lua: bit-identical to their YAML twins --------------------------------

run tests/lua/twin.lua
expect_rc "twin.lua: exit 0" 0
grep -E '^(PASS|FAIL) ' "$OUT"
check "twin.lua: at least 10 twin comparisons" [ "$(grep -c '^PASS twin' "$OUT")" -ge 10 ]

# a score's per-stage lists, built on first read, equal strata.eval's
run tests/lua/lazy.lua
expect_rc "lazy.lua: exit 0" 0
grep -E '^(PASS|FAIL) ' "$OUT" || fail "lazy.lua: reports a result" "no PASS/FAIL line"

# strata.eval of the golden dense plan (inline Lua model and cluster) against eval --json:
# same keys (arrays 1-based in Lua), same numbers (JSON prints 10 digits)
run tests/lua/golden_dense.lua
cp "$OUT" "$T/lua_dense.txt"
st eval tests/golden/dense.yaml --json
if python3 - "$OUT" "$T/lua_dense.txt" >"$T/cmp" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
flat = {}
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items(): walk(x, path + [k])
    elif isinstance(v, list):
        for i, x in enumerate(v): walk(x, path + [str(i + 1)])
    else:
        flat[".".join(path)] = v
walk(j, [])
lua = {}
for line in open(sys.argv[2]):
    k, _, v = line.rstrip("\n").partition("\t")
    lua[k] = v
bad = sorted(set(flat) ^ set(lua))
for k in bad: print("key only in", "json" if k in flat else "lua", k)
for k, v in flat.items():
    if k not in lua: continue
    w = lua[k]
    if isinstance(v, bool): ok = w == ("true" if v else "false")
    elif isinstance(v, (int, float)): ok = abs(float(w) - v) <= 1e-9 * max(abs(v), 1e-300) or float(w) == v
    else: ok = w == str(v)
    if not ok: print("differs", k, v, w); bad.append(k)
print(len(flat), "values compared")
sys.exit(1 if bad else 0)
PY
then pass "strata.eval: the keys and numbers of eval --json ($(tail -n 1 "$T/cmp"))"
else fail "strata.eval: the keys and numbers of eval --json" "$(head -n 5 "$T/cmp")"; fi

# ---- the sandbox ---------------------------------------------------------------------------

# a limit must stop the script quickly: at most 5 s wall even on a loaded CI machine
timed() {   # timed NAME WANT_STDERR_REGEX SCRIPT_FILE [strata run options]
    local name=$1 re=$2 f=$3
    shift 3
    local t0=$SECONDS
    st run "$@" "$f"
    local dt=$((SECONDS - t0))
    if [ "$RC" -eq 1 ] && grep -Eq -- "$re" "$ERR" && [ "$dt" -le 5 ]; then pass "$name"
    else fail "$name" "exit $RC after ${dt}s"; show "$ERR"; fi
}
script loop.lua 'local n = 0
while true do n = n + 1 end'
timed "sandbox: endless loop stopped by the instruction budget, with file:line" \
    'loop\.lua:2: instruction budget of 100000000 exceeded' "$L/loop.lua"
script swallow.lua 'while true do pcall(function() while true do end end) end'
timed "sandbox: pcall cannot swallow the budget" 'instruction budget of [0-9]+ exceeded' "$L/swallow.lua"
script table_bomb.lua 'local t = {}
for i = 1, math.huge do t[i] = {i} end'
timed "sandbox: table allocation bomb stopped by the memory cap, with file:line" \
    'table_bomb\.lua:2: memory limit of 128 MiB exceeded' "$L/table_bomb.lua"
script string_bomb.lua 'local s = "xx"
while true do s = s .. s end'
timed "sandbox: doubling string bomb stopped by the memory cap" 'memory limit of 128 MiB exceeded' "$L/string_bomb.lua"
script rep_bomb.lua 'local t = {}
while true do t[#t + 1] = string.rep("x", 1 << 20) .. #t end'
timed "sandbox: many large strings stopped by the memory cap" 'memory limit of 128 MiB exceeded' "$L/rep_bomb.lua"
script pcall_bomb.lua 'while true do pcall(function() local t = {} while true do t[#t + 1] = {} end end) end'
timed "sandbox: pcall cannot swallow the memory cap" 'memory limit of 128 MiB exceeded' "$L/pcall_bomb.lua"
timed "sandbox: --lua-steps sets the budget" 'instruction budget of 1000000 exceeded' "$L/loop.lua" --lua-steps 1000000
timed "sandbox: --lua-mem sets the cap" 'memory limit of 8 MiB exceeded' "$L/table_bomb.lua" --lua-mem 8

script big_ok.lua 'local t = {} for i = 1, 3000000 do t[i] = i end print(#t)'
st run --lua-mem 512 --lua-steps=500000000 "$L/big_ok.lua"
check "sandbox: raised limits let a larger script finish" eval '[ "$RC" -eq 0 ] && grep -qx 3000000 "$OUT"'

for g in io os debug package dofile loadfile; do
    script "no_$g.lua" "local x = $g"
    run "$L/no_$g.lua"
    check "sandbox: '$g' is not available (exit 1, says so with file:line)" \
        eval "[ \"\$RC\" -eq 1 ] && grep -q \"no_$g.lua:1: '$g' is not available in the strata sandbox\" \"\$ERR\""
done
script open.lua 'io.open("/etc/passwd")'
run "$L/open.lua"
check "sandbox: io.open fails (no file access)" eval '[ "$RC" -eq 1 ] && grep -q "open.lua:1: .io. is not available" "$ERR"'
script req.lua 'require("os")'
run "$L/req.lua"
err_has "sandbox: require of anything but strata fails" "only 'strata' can be required"
script bytecode.lua 'local f, err = load(string.dump(function() return 42 end))
assert(f == nil, "bytecode loaded")
print(err)
local g, err2 = load(string.dump(function() return 42 end), "dump", "b")
assert(g == nil)
print(err2)'
run "$L/bytecode.lua"
check "sandbox: bytecode from string.dump is refused by load, with a clear message" \
    eval '[ "$RC" -eq 0 ] && [ "$(grep -c "binary chunks (bytecode) are not allowed" "$OUT")" -eq 2 ]'
script textload.lua 'local f = load("return 6 * 7") print(f())
local env = {x = 5}
print(load("return x", "chunk", "t", env)())
print(load("x = ", "=frag"))'
run "$L/textload.lua"
check "sandbox: load of text chunks works (with an env), syntax errors come back as nil, message" \
    eval '[ "$RC" -eq 0 ] && sed -n 1p "$OUT" | grep -qx 42 && sed -n 2p "$OUT" | grep -qx 5 && sed -n 3p "$OUT" | grep -q "^nil	frag:1:"'
script gc.lua 'collectgarbage("stop")'
run "$L/gc.lua"
err_has "sandbox: collectgarbage('stop') is refused" "collectgarbage('stop') is not allowed"
script det.lua 'local t = {}
for i = 1, 200 do t["key" .. i] = i; t[i * 3] = i end
local out = {}
for k, v in pairs(t) do out[#out + 1] = tostring(k) end
print(table.concat(out, ","))
print(math.random(1, 1000000), math.random())
math.randomseed()
print(math.random(1, 1000000))'
run "$L/det.lua"
cp "$OUT" "$T/det1"
run "$L/det.lua"
check "sandbox: pairs order and math.random are the same on every run" cmp -s "$OUT" "$T/det1"
check "sandbox: pairs visits integer keys ascending, then strings sorted" \
    eval 'head -n 1 "$OUT" | grep -q "^3,6,9,.*,600,key1,key10,key100,key101"'

# ---- errors --------------------------------------------------------------------------------

script syntax.lua 'local x = 1
local y = = 2'
run "$L/syntax.lua"
check "errors: a syntax error exits 1 with file:line" eval '[ "$RC" -eq 1 ] && grep -q "syntax.lua:2:" "$ERR"'
script runtime.lua 'local function f(t)
  return t.x.y
end
f({})'
run "$L/runtime.lua"
check "errors: a runtime error exits 1 with file:line and a traceback" \
    eval '[ "$RC" -eq 1 ] && grep -q "runtime.lua:2: attempt to index a nil value" "$ERR" && grep -q "stack traceback:" "$ERR" && grep -q "runtime.lua:4: in main chunk" "$ERR"'
script apierr.lua 'local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 8}
strata.eval(p, {tp = "eight"})'
run "$L/apierr.lua"
check "errors: an API error names the script line and the key" \
    eval '[ "$RC" -eq 1 ] && grep -q "apierr.lua:2: strategy: tp must be an integer (got .eight.)" "$ERR"'
script filter_err.lua 'local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 8}
strata.search(p, {filter = function(s)
  if s.tp > 2 then error("no wide TP here") end
  return true
end})'
run "$L/filter_err.lua"
check "errors: an error in a filter aborts the search with the filter's file:line" \
    eval '[ "$RC" -eq 1 ] && grep -q "filter_err.lua:2: strata.search: filter function failed: .*filter_err.lua:3: no wide TP here" "$ERR"'
script score_err.lua 'local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 8}
strata.search(p, {score = function(r)
  return r.time.no_such_key + 1
end})'
run "$L/score_err.lua"
check "errors: an error in a score aborts the search with the score's file:line" \
    eval '[ "$RC" -eq 1 ] && grep -q "score function failed: .*score_err.lua:3: attempt to perform arithmetic on a nil value" "$ERR"'
script filter_loop.lua 'local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 8}
strata.search(p, {filter = function(s) while true do end end})'
timed "errors: an endless filter is stopped by the budget" 'filter_loop.lua:2: .*instruction budget' "$L/filter_loop.lua"

run "$L/does-not-exist.lua"
check "usage: a missing script exits 2 with its name" eval '[ "$RC" -eq 2 ] && grep -q "does-not-exist.lua" "$ERR"'
run "$L"
check "usage: a directory exits 2" eval '[ "$RC" -eq 2 ]'
run
check "usage: no script exits 2 with the usage" eval '[ "$RC" -eq 2 ] && grep -q "usage: strata run" "$ERR"'
for bad in "--lua-steps abc" "--lua-steps 0" "--lua-mem -1" "--lua-mem 99999999" "--bogus"; do
    # shellcheck disable=SC2086
    st run $bad "$L/loop.lua"
    check "usage: 'strata run $bad' exits 2" [ "$RC" -eq 2 ]
done

# ---- arguments, output and return values -----------------------------------------------------

script args.lua 'print(#arg, arg[0]:match("args.lua$") ~= nil, arg[1], arg[2], select("#", ...), ...)'
run "$L/args.lua" one --two
check "run: arguments in arg[] and ..., options after the script belong to it" \
    eval '[ "$RC" -eq 0 ] && grep -qx "2	true	one	--two	2	one	--two" "$OUT"'
script api.lua 'local m = strata.preset("llama3-70b")
local c = strata.preset("dgx-h100")
local p = strata.plan{model = m, cluster = c, devices = 512,
  strategy = {tp = 8, pp = 4, global_batch = 512, seq_length = 8192, recompute = "selective"}}
local r = strata.eval(p)
print(m.name, m.layers, c.node_devices, p.strategy.dp, r.valid, r.memory.fits, #r.memory.stages)
local q, why = p:with{tp = 3}
print(q, why)
local bad = strata.eval(p, {tp = 3})
print(bad.valid, bad.error)
local sr = strata.search(p, {top = 3, ilp = false})
print(#sr, sr[1].search.engine, sr[1].throughput.tokens_per_s >= sr[2].throughput.tokens_per_s)
local il = strata.ilp(p)
print(il.ilp.status, il.plan ~= nil, il.ilp.step_s <= r.time.step_s + 1e-9)
local ps = strata.presets()
print(#ps.models >= 12, #ps.clusters >= 7)'
run "$L/api.lua"
check "api: presets, plan, eval, with, search and ilp answer sensibly" eval '[ "$RC" -eq 0 ] &&
    sed -n 1p "$OUT" | grep -qx "Llama-3-70B	80	8	16	true	true	4" &&
    sed -n 2p "$OUT" | grep -qx "nil	tp\*pp\*cp = 12 does not divide 512 devices" &&
    sed -n 3p "$OUT" | grep -qx "false	tp\*pp\*cp = 12 does not divide 512 devices" &&
    sed -n 4p "$OUT" | grep -qx "3	two-level	true" &&
    sed -n 5p "$OUT" | grep -Eqx "(optimal|feasible)	true	true" &&
    sed -n 6p "$OUT" | grep -qx "true	true"'
[ "$RC" -eq 0 ] || show "$ERR"

# strata.search merges strategies with identical results as search --json does: the same
# rows, the same alike counts and merged strategies (issue 17); step times to the 7 digits
# that the JSON's figures carry without rounding the other way
script alike.lua 'local p = strata.plan{model = "llama3-70b", cluster = "dgx-h100", devices = 512,
  strategy = {global_batch = 512, seq_length = 8192}}
for i, r in ipairs(strata.search(p, {top = 10, ilp = false})) do
  local a = {}
  for _, s in ipairs(r.search.alike_strategies) do a[#a + 1] = s.dp .. "/" .. s.cp .. "/" .. s.micro_batch end
  print(i, string.format("%.7g", r.search.step_s), r.plan.strategy.dp, r.search.alike, table.concat(a, " "))
end'
run "$L/alike.lua"
cp "$OUT" "$T/alike.lua.out"
st search -m llama3-70b -n 512 --top 10 --no-ilp --json
python3 -c 'import json, sys
for i, r in enumerate(json.load(open(sys.argv[1])), 1):
    a = " ".join("%d/%d/%d" % (s["dp"], s["cp"], s["micro_batch"]) for s in r["search"]["alike_strategies"])
    print("%d\t%.7g\t%d\t%d\t%s" % (i, r["search"]["step_s"], r["strategy"]["dp"], r["search"]["alike"], a))' "$OUT" >"$T/alike.cli.out"
check "alike: strata.search merges identical results as search --json (rows, counts, strategies)" \
    eval 'cmp -s "$T/alike.lua.out" "$T/alike.cli.out" && grep -qE "	[1-9][0-9]*	[0-9]+/" "$T/alike.cli.out"'

# ---- fuzzed API arguments ------------------------------------------------------------------

run tests/lua/fuzz.lua
expect_rc "fuzz.lua: exit 0" 0
out_has "fuzz.lua: every bad call raised or returned, none crashed" "PASS fuzz:"
