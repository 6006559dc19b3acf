#!/usr/bin/env bash
# Hostile Lua recipes (strata-lua(7), SANDBOX): what used to escape the sandbox or its
# limits. Each must end quickly with exit 1 and a message that names the limit and the
# option that raises it, never crash or hang:
#  - the lazy stage lists' metatable is protected and its functions check their argument;
#    no metatable the API hands out can be read or replaced; tostring, print and
#    string.format show no addresses;
#  - the budget, the deadline and the cancel flag apply inside __gc finalizers and xpcall
#    message handlers;
#  - C library work is counted (pattern matching, string.rep, table.move/insert/remove/
#    sort, utf8.len), the wall-clock limit (--lua-time) bounds everything, and the time and
#    memory of strata.ilp and strata.search count against the recipe's limits.
# The explorer's side (Esc, q and signals stopping such recipes) is lua_explorer.sh and
# tests/unit/test_script_limits.c.
. "$(dirname "$0")/_lib.sh"

L=$T/lua
mkdir -p "$L"
script() { printf '%s\n' "$2" >"$L/$1"; }    # script NAME TEXT
BIG=1125899906842624                          # --lua-steps 2^50: only the clock stops it

# hostile NAME WANT_REGEX MAX_SECONDS FILE [strata run options]: exit 1, stderr matches,
# within MAX_SECONDS of wall time
hostile() {
    local name=$1 re=$2 max=$3 f=$4
    shift 4
    local t0=$SECONDS
    st run "$@" "$f"
    local dt=$((SECONDS - t0))
    if [ "$RC" -eq 1 ] && grep -Eq -- "$re" "$ERR" && [ "$dt" -le "$max" ]; then pass "$name"
    else fail "$name" "exit $RC after ${dt}s"; show "$ERR"; fi
}
# stops NAME FILE: the recipe in FILE is stopped by the budget (--lua-steps 10^7) and, with no
# budget to speak of, by the clock (--lua-time 1), each time with the script's line
stops() {
    local name=$1 f=$2 b
    b=$(basename "$f" .lua)
    hostile "$name: stopped by the budget, with the line" \
        "$b\\.lua:[0-9]+: instruction budget of 10000000 exceeded \\(raise it with --lua-steps\\)" 10 "$f" --lua-steps 10000000
    hostile "$name: with no budget to speak of, stopped by the clock" \
        "$b\\.lua:[0-9]+: time limit of 1 s exceeded \\(raise it with --lua-time\\)" 5 "$f" --lua-steps $BIG --lua-time 1
}
PLAN='local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 8}'

# ---- 1. nothing the API hands out can be taken apart ----------------------------------------

# the one-liner that crashed: mt was the lazy lists' metatable, mt.__index() read address 0
script lazy_mt.lua "$PLAN
local mt; strata.search(p, {top=1, ilp=false, score=function(r) mt = mt or getmetatable(r.time.stages) return 1 end}); mt.__index()"
st run "$L/lazy_mt.lua"
check "lazy lists: getmetatable gives a name, so mt.__index() is a plain Lua error (exit 1)" \
    eval '[ "$RC" -eq 1 ] && grep -q "lazy_mt.lua:2: attempt to call a nil value (field .__index.)" "$ERR"'
script lazy_probe.lua "$PLAN"'
local out = {}
strata.search(p, {top = 1, ilp = false, score = function(r)
  if #out == 0 then
    local st = r.time.stages
    out[#out + 1] = tostring(getmetatable(st))
    out[#out + 1] = tostring(next(st))                 -- nothing hidden inside the table
    out[#out + 1] = tostring(rawlen(st))
    out[#out + 1] = tostring(pcall(setmetatable, st, nil))
    out[#out + 1] = tostring(#st > 0 and st[1].fwd_s > 0) -- reading fills it
    out[#out + 1] = tostring(getmetatable(st))            -- then it is a plain table
    out[#out + 1] = tostring(#r.memory.stages == #st and r.memory.stages[1].total_gib > 0)
  end
  return 1
end})
print(table.concat(out, " "))'
st run "$L/lazy_probe.lua"
check "lazy lists: protected metatable, no private keys, cannot be replaced, fill on first read" \
    eval '[ "$RC" -eq 0 ] && grep -qx "strata.lazy nil 0 false true nil true" "$OUT"'

script metatables.lua "$PLAN"'
local m, c = strata.preset("llama3-8b"), strata.preset("dgx-h100")
for _, v in ipairs{m, c, p, _G} do
  print(tostring(getmetatable(v)) .. " " .. tostring((pcall(setmetatable, v, {}))))
end'
st run "$L/metatables.lua"
check "model, cluster, plan and _G: getmetatable names them, setmetatable is refused" eval '[ "$RC" -eq 0 ] &&
    [ "$(tr "\n" " " <"$OUT")" = "strata.model false strata.cluster false strata.plan false strata.globals false " ]'

# every function of every library and of the API, with arguments of every wrong type: each
# returns or raises a Lua error, nothing crashes (the stage lists' functions included)
script every_fn.lua "$PLAN"'
local m = strata.preset("llama3-8b")
local fns, seen = {}, {}
local function add(name, f) if type(f) == "function" and not seen[f] then seen[f] = true; fns[#fns + 1] = {name, f} end end
for _, lib in ipairs{"_G", "string", "table", "math", "utf8", "strata"} do
  local t = lib == "_G" and _G or _G[lib]
  for k, f in pairs(t) do add(lib .. "." .. k, f) end
end
add("plan.with", p.with); add("plan.eval", p.eval); add("model.blocks", m.blocks)
local skip = {["_G.print"] = true, ["strata.search"] = true, ["strata.ilp"] = true} -- noisy; slow (tests/lua/fuzz.lua)
local odd = table.pack(nil, true, 0, -1, 2^53, math.maxinteger, math.mininteger, 0 / 0, "", "x", "%b()",
  ("("):rep(300), {}, {1, 2}, print, m, p, setmetatable({}, {__index = rawlen, __len = function() return 2^31 - 2 end}))
local n, errs = 0, 0
for _, e in ipairs(fns) do
  if not skip[e[1]] then
    for i = 1, odd.n do
      for j = 1, odd.n, 3 do
        n = n + 1
        if not pcall(e[2], odd[i], odd[j], odd[(i + j) % odd.n + 1]) then errs = errs + 1 end
      end
    end
  end
end
print("functions", #fns, n, errs)'
st run --lua-time 60 "$L/every_fn.lua"
check "every library and API function with odd arguments: returns or raises, no crash" \
    eval '[ "$RC" -eq 0 ] && awk "/^functions/ { ok = \$2 >= 80 && \$3 > 5000 && \$4 > 0 } END { exit !ok }" "$OUT"'
[ "$RC" -eq 0 ] || show "$ERR"

script tostring.lua "$PLAN"'
local t, f = {}, function() end
print(tostring(strata.eval), tostring(print), tostring(strata), tostring(t), tostring(t), tostring(f), tostring({}))
print(strata, t, f, string.format("%s|%s|%5.3s", t, strata.ilp, {}))
print(tostring(setmetatable({}, {__name = "thing"})), tostring(setmetatable({}, {__tostring = function() return "mine" end})))
print(pcall(string.format, "%p", t))
print(tostring(p), tostring(strata.preset("dgx-h100")), string.format("%s", 42))'
st run "$L/tostring.lua"
check "tostring: API functions are 'function: builtin', tables and Lua functions '#n' in order of showing" \
    eval '[ "$RC" -eq 0 ] && sed -n 1p "$OUT" | grep -qx "function: builtin	function: builtin	table: #1	table: #2	table: #2	function: #3	table: #4"'
check "print and string.format('%s') name them the same way; __name and __tostring are kept" \
    eval 'sed -n 2p "$OUT" | grep -qx "table: #1	table: #2	function: #3	table: #2|function: builtin|  tab" &&
          sed -n 3p "$OUT" | grep -qx "thing: #[0-9]*	mine"'
check "string.format('%p') is refused with a message" \
    eval 'sed -n 4p "$OUT" | grep -q "^false	.*%p. is not available in the strata sandbox"'
check "no address anywhere in the output (no 0x...)" eval '! grep -Eq "0x[0-9a-f]{4,}" "$OUT"'
cp "$OUT" "$T/tostring1"
st run "$L/tostring.lua"
check "tostring: the same output on every run" cmp -s "$OUT" "$T/tostring1"

# ---- 2. finalizers and message handlers --------------------------------------------------

script gc_loop.lua 'setmetatable({}, {__gc = function() while true do end end}); collectgarbage()'
stops "__gc that loops" "$L/gc_loop.lua"
script xpcall_loop.lua 'xpcall(function() while true do end end, function() while true do end end)'
stops "xpcall with a looping body and handler" "$L/xpcall_loop.lua"
script handler_loop.lua 'xpcall(function() error("first") end, function(m) while true do end end)'
stops "xpcall handler that loops on an ordinary error" "$L/handler_loop.lua"
script gc_late.lua 'local mt = {__gc = true}
setmetatable({}, mt)
mt.__gc = function() while true do end end
collectgarbage()'
stops "__gc set after the table was marked (runs: Lua reads __gc when it collects)" "$L/gc_late.lua"
script gc_at_close.lua 'setmetatable({}, {__gc = function() while true do end end})
print("done")'
t0=$SECONDS
st run "$L/gc_at_close.lua"
check "a finalizer still pending when the recipe ends is not run (exit 0 at once)" \
    eval '[ "$RC" -eq 0 ] && grep -qx done "$OUT" && [ $((SECONDS - t0)) -le 5 ]'
script gc_semantics.lua 'local log = {}
local mt = {__gc = function(o) log[#log + 1] = "gc " .. o.name end}
local a = setmetatable({name = "a"}, mt)
setmetatable({name = "b"}, mt)
local late = {}
setmetatable({name = "c"}, late)
late.__gc = function() log[#log + 1] = "late" end
print(getmetatable(a).__gc == mt.__gc, rawget(mt, "__gc") ~= nil)
collectgarbage(); collectgarbage()
print(table.concat(log, ","))
a = nil
collectgarbage(); collectgarbage()
print(table.concat(log, ","))
print(select(2, xpcall(function() error("x", 0) end, function(m) return "handled " .. m end)))
print(xpcall(function(a, b) return a + b end, print, 2, 3))'
st run "$L/gc_semantics.lua"
check "finalizers keep Lua's rules (run once collected, __gc read at marking), xpcall its results" \
    eval '[ "$RC" -eq 0 ] && [ "$(tr "\n" "|" <"$OUT")" = "true	true|gc b|gc b,gc a|handled x|true	5|" ]'
[ "$RC" -eq 0 ] || show "$ERR"

# ---- 3. C library work ---------------------------------------------------------------------

script find_backtrack.lua 'string.rep("a", 5000):find(".-.-.-.-b")'
stops "find with a backtracking pattern (counted as steps)" "$L/find_backtrack.lua"
script find_balance.lua 'string.find(string.rep("(", 1000000), "%b()")'
stops "find with %b on a million '('" "$L/find_balance.lua"
script gmatch.lua 'local s = ("ab"):rep(3000)
for _ in s:gmatch("a.-.-.-c") do end'
stops "gmatch with a backtracking pattern" "$L/gmatch.lua"
script gsub.lua 'local n = select(2, ("x"):rep(100000):gsub("x*y", ""))'
stops "gsub retrying a greedy item at every position" "$L/gsub.lua"
script plain_find.lua 'local s = ("a"):rep(1 << 24)
local needle = ("a"):rep(1 << 22) .. "b"
print(s:find(needle, 1, true))'
hostile "plain find of a long needle: counted, stopped by the budget" 'plain_find\.lua:3: instruction budget of 10000000' 10 \
    "$L/plain_find.lua" --lua-steps 10000000
script rep_empty.lua 'print(#string.rep("", math.maxinteger), #string.rep("", math.maxinteger, ""), #("ab"):rep(3, ","))'
t0=$SECONDS
st run "$L/rep_empty.lua"
check "string.rep('', math.maxinteger) is '' at once" \
    eval '[ "$RC" -eq 0 ] && grep -qx "0	0	8" "$OUT" && [ $((SECONDS - t0)) -le 5 ]'
script rep_huge.lua 'local s = string.rep("x", 1 << 30)'
hostile "string.rep beyond the memory cap: refused before it starts" \
    'rep_huge\.lua:1: memory limit of 128 MiB exceeded in string.rep \(raise it with --lua-mem\)' 5 "$L/rep_huge.lua"
script tmove.lua 'table.move({}, 1, math.maxinteger - 1, 2)'
stops "table.move of 2^63 nothing (counted)" "$L/tmove.lua"
script tinsert.lua 'table.insert(setmetatable({}, {__len = function() return math.maxinteger - 1 end}), 1, 0)'
hostile "table.insert shifting 2^63 slots: stopped by the clock" 'tinsert\.lua:1: time limit of 1 s exceeded' 5 \
    "$L/tinsert.lua" --lua-steps $BIG --lua-time 1
script tsort.lua 'table.sort(setmetatable({}, {__len = function() return 2^31 - 2 end, __index = rawlen, __newindex = rawequal}))'
hostile "table.sort of 2^31 elements made by C metamethods: stopped by the clock" 'tsort\.lua:1: time limit of 1 s exceeded' 5 \
    "$L/tsort.lua" --lua-steps $BIG --lua-time 1
script heavy_calls.lua 'local s = ("é"):rep(1 << 23)
while true do local _ = s:upper(), utf8.len(s) end'
hostile "a loop of long library calls: stopped close to the deadline" 'heavy_calls\.lua:2: time limit of 1 s exceeded' 4 \
    "$L/heavy_calls.lua" --lua-steps $BIG --lua-time 1
script eval_loop.lua "$PLAN"'
while true do strata.eval(p) end'
hostile "a loop of strata.eval (C time the budget does not see): stopped by the clock" \
    'eval_loop\.lua:2: time limit of 1 s exceeded' 5 "$L/eval_loop.lua" --lua-time 1

# the solvers: time and memory inside strata.ilp and strata.search count (two recompute
# pins inside the tail of an interleaved pipeline: an ILP that runs to any time limit)
ILP='local p = strata.plan{model = "llama3-405b", cluster = "dgx-h100", devices = 2048,
  strategy = {tp = 8, pp = 16, vpp = 4, schedule = "interleaved"}, pins = {"layers[60:70].recompute=selective", "layers[90:95].recompute=full"}}
local r = strata.ilp(p)
print(r.ilp.status)'
script ilp.lua "$ILP"
hostile "strata.ilp: stopped by the time limit, which names it" \
    'ilp\.lua:3: time limit of 2 s exceeded in strata.ilp \(raise it with --lua-time\)' 8 "$L/ilp.lua" --lua-mem 1000 --lua-time 2
hostile "strata.ilp: its memory counts against --lua-mem" \
    'ilp\.lua:3: memory limit of 4 MiB exceeded in strata.ilp \(raise it with --lua-mem\)' 5 "$L/ilp.lua" --lua-mem 4
# the recipe that ran 27 s and took 6.3 GB: now a second, and the memory cap holds
case $STRATA_BUILD in
*-san) hostile "--lua-steps 1000 --lua-mem 1 with strata.ilp: stopped at once" 'memory limit of 1 MiB exceeded in strata.ilp' 10 \
        "$L/ilp.lua" --lua-steps 1000 --lua-mem 1 ;;
*)
    t0=$SECONDS
    rss=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[-1] + ".err", "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$STRATA" run --lua-steps 1000 --lua-mem 1 "$L/ilp.lua")
    check "--lua-steps 1000 --lua-mem 1 with strata.ilp: stopped within 5 s under 200 MB (was 27 s, 6.3 GB)" \
        eval 'grep -q "memory limit of 1 MiB exceeded in strata.ilp" "$L/ilp.lua.err" && [ $((SECONDS - t0)) -le 5 ] && [ "${rss:-999999}" -lt 204800 ]'
    ;;
esac
script search.lua 'local p = strata.plan{model = "deepseek-v3", cluster = "h800", devices = 16384,
  strategy = {global_batch = 8192, seq_length = 4096}}
print(#strata.search(p, {top = 5, exhaustive = true}))'
hostile "strata.search: stopped by the time limit" 'search\.lua:3: time limit of 1 s exceeded in strata.search' 5 \
    "$L/search.lua" --lua-time 1
script search_score.lua "$PLAN"'
strata.search(p, {score = function(r) while true do end end})'
hostile "strata.search: a looping score is stopped with the score's line" \
    'score function failed: .*search_score\.lua:2: instruction budget of 10000000 exceeded' 10 "$L/search_score.lua" --lua-steps 10000000
script pcall_time.lua 'for i = 1, 1e12 do pcall(function() while true do end end) end'
hostile "pcall cannot swallow the time limit" 'time limit of 1 s exceeded' 5 "$L/pcall_time.lua" --lua-steps $BIG --lua-time 1

# ---- the option --------------------------------------------------------------------------------

script quick.lua 'print("ok")'
st run --lua-time 0.5 "$L/quick.lua"
check "--lua-time takes decimal seconds" eval '[ "$RC" -eq 0 ] && grep -qx ok "$OUT"'
st run --lua-time=2 "$L/quick.lua"
check "--lua-time=S works too" [ "$RC" -eq 0 ]
for bad in "--lua-time 0" "--lua-time -1" "--lua-time abc" "--lua-time nan" "--lua-time 1e9" "--lua-time"; do
    # shellcheck disable=SC2086
    st run $bad "$L/quick.lua"
    check "usage: 'strata run $bad' exits 2 with a reason" eval '[ "$RC" -eq 2 ] && grep -q "lua-time" "$ERR"'
done
st run --help
check "strata run --help documents --lua-time and its default of 60 s" \
    eval 'grep -Eq "^  --lua-time SECONDS +wall-clock limit.*default 60" "$OUT"'
