#!/usr/bin/env bash
# The explorer's side of io_hostile.sh: `w` on a plan whose inline model is named 40 x "é"
# (80 bytes, cut to whole characters on load) writes a plan that loads again (it replaced
# such a plan with one that did not), and `:e` of a FIFO says what it is at once instead of
# waiting for a writer.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

E40=$(printf '\xc3\xa9%.0s' $(seq 40))
E31=$(printf '\xc3\xa9%.0s' $(seq 31))
mkdir -p "$T/plans"
cat >"$T/plans/e40.yaml" <<EOF
model: {name: "$E40", hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 4,
        num_attention_heads: 8, num_key_value_heads: 8, vocab_size: 32000}
cluster: dgx-h100
devices: 8
strategy: {tp: 1, pp: 1}
EOF
tui_start 100 30 -- "$T/plans/e40.yaml"
tcheck "40 x é: the explorer opens the plan" wait_for "e40.yaml"
keys w
tcheck "40 x é: w saves it" wait_for "saved $T/plans/e40.yaml"
check "40 x é: no temporary file left" [ "$(ls -A "$T/plans")" = "e40.yaml" ]
st eval "$T/plans/e40.yaml" --json
expect_rc "40 x é: the saved plan loads (eval exit 0)" 0
out_has "40 x é: with the name cut to 31 whole é" "\"model\": \"$E31\","

mkfifo "$T/fifo.yaml"
typed ":e $T/fifo.yaml"
keys Enter
tcheck ":e FIFO: refused at once, saying what it is" wait_for "not a regular file (a FIFO)" 10
check ":e FIFO: the explorer is still up" eval 'screen | grep -Fq "Timeline"'
keys q
tcheck "quit after :e FIFO" wait_exit
check "exit 0" [ "$EXIT_RC" = 0 ]
