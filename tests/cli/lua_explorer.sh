#!/usr/bin/env bash
# Hostile Lua recipes in the explorer (`:lua FILE`): a recipe that runs in a __gc finalizer,
# in an xpcall message handler or inside strata.search / strata.ilp, where the count hook
# used to be off or never came, is stopped by Esc (the job's cancel flag, which the
# sandbox checks there too) within a couple of seconds; q, SIGTERM, SIGHUP and SIGINT end
# the explorer promptly while one runs (they cancel the job and join its thread). The
# recipes use the explorer's default limits, under which each would run for a minute.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

strata_pid() { pgrep -P "$(tm display -p -t "$S" '#{pane_pid}')" | head -n 1; }

R=$T/recipes
mkdir -p "$R"
PLAN='local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 8}'
# (the collector is off while a finalizer runs, so this one loops on work that allocates
# nothing: each comparison of two 4 MiB strings is one slow instruction)
printf '%s\n' 'local a = ("x"):rep(1 << 22)' 'local b = a:sub(1, -2) .. "y"' \
    'setmetatable({}, {__gc = function() while true do local _ = a < b end end})' 'collectgarbage()' >"$R/gc_spin.lua"
printf '%s\n' "$PLAN" 'xpcall(function() error("first") end, function() while true do strata.eval(p) end end)' \
    >"$R/handler_spin.lua"
printf '%s\n' 'local p = strata.plan{model = "deepseek-v3", cluster = "h800", devices = 16384,' \
    '  strategy = {global_batch = 8192, seq_length = 4096}}' 'strata.search(p, {exhaustive = true})' >"$R/search_spin.lua"
printf '%s\n' "$PLAN" 'strata.search(p, {score = function() while true do strata.eval(p) end end})' >"$R/score_spin.lua"

cd "$R" || exit 2   # short names on the message line

# run_recipe NAME: start :lua NAME and wait until the explorer says it runs
run_recipe() {
    keys :
    typed "lua $1"
    keys Enter
    wait_for "lua $1 running"
}

tui_start 100 30 --
tcheck "explorer: started" wait_for "Timeline"
for r in gc_spin handler_spin search_spin score_spin; do
    run_recipe "$r.lua"
    sleep 0.5
    t0=$SECONDS
    keys Escape
    tcheck "Esc stops $r.lua: 'script cancelled' on the message line" wait_for "script cancelled" 10
    check "Esc stops $r.lua within 3 s" [ $((SECONDS - t0)) -le 3 ]
    check "after $r.lua: the explorer answers" eval 'keys j; wait_for "Timeline"'
    wait_gone "script cancelled" 5 || keys Escape
done
run_recipe gc_spin.lua
t0=$SECONDS
keys q
tcheck "q while a finalizer spins: strata ends" wait_exit 10
check "q while a finalizer spins: exit 0 within 3 s, terminal restored" \
    eval '[ "$EXIT_RC" = 0 ] && [ $((SECONDS - t0)) -le 3 ] && stty_restored'
check "q: no sanitizer report" no_sanitizer

# signal NAME RECIPE WANT_RC
signal() {
    local want=$3
    tui_start 100 30 --
    wait_for "Timeline"
    run_recipe "$2"
    sleep 0.3
    local t0=$SECONDS
    kill "-$1" "$(strata_pid)" 2>/dev/null
    tcheck "SIG$1 while $2 runs: strata ends" wait_exit 10
    check "SIG$1 while $2 runs: exit $want within 3 s, terminal restored" \
        eval '[ "$EXIT_RC" = "$want" ] && [ $((SECONDS - t0)) -le 3 ] && stty_restored'
    check "SIG$1: no sanitizer report" no_sanitizer
}
signal TERM handler_spin.lua 143
signal HUP search_spin.lua 129
signal INT gc_spin.lua 130
