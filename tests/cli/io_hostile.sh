#!/usr/bin/env bash
# Hostile files and names at the command line (the explorer's side: io_hostile_tui.sh):
#  - a name of 40 x "é" (80 bytes) is cut to whole characters: `eval` prints valid UTF-8
#    (table, JSON, CSV) and an export of it carries no broken character;
#  - a FIFO, a device, a socket or a directory as a plan, model, cluster, validate argument
#    or export target is refused at once (exit 2, "not a regular file (a FIFO)"), never
#    waited on; validate refuses such an entry of a directory and reports the rest;
#  - exports (the same atomic save as the explorer's `w`) follow the umask, drop set-user-ID
#    bits of the file they replace, save 255-byte file names, remove the temporary files a
#    killed save left, and name the failing call with its reason;
#  - escape sequences in a config.json `name`, a cluster, a preset, a validation id or a key
#    reach neither the table, nor CSV, nor stderr, nor a preset listing; JSON escapes them;
#  - a 64 MiB input (the documented maximum) loads in a small multiple of its size.
. "$(dirname "$0")/_lib.sh"

# run under a time limit: a command that blocks on a FIFO is a failure, not a hang
tst() {
    timeout -k 2 "${TLIM:-10}" "$STRATA" "$@" >"$OUT" 2>"$ERR" </dev/null
    RC=$?
    if [ $RC -eq 124 ] || [ $RC -eq 137 ]; then
        fail "strata $*: returns at once" "timed out"
    elif [ $RC -gt 2 ] || grep -Eq "$SAN_RE" "$ERR"; then
        fail "strata $*: no crash" "exit $RC"
        show "$ERR"
    fi
}
# valid UTF-8 throughout (iconv, else python3, else the check is skipped)
utf8() {
    if command -v iconv >/dev/null 2>&1; then iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
    elif command -v python3 >/dev/null 2>&1; then python3 -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$1"
    else return 0; fi
}
# no terminal control byte: C0 except newline, DEL, C1 in UTF-8 (C2 80-9F), raw 8-bit CSI
no_ctl() { ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$1"; }

# ---- 6: names cut on character boundaries -------------------------------------------
E40=$(printf '\xc3\xa9%.0s' $(seq 40))
E31=$(printf '\xc3\xa9%.0s' $(seq 31))
cat >"$T/e40.yaml" <<EOF
model: {name: "$E40", hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 4,
        num_attention_heads: 8, num_key_value_heads: 8, vocab_size: 32000}
cluster: dgx-h100
devices: 8
EOF
tst eval "$T/e40.yaml" --json
expect_rc "40 x é: eval --json exit 0" 0
check "40 x é: eval --json is valid UTF-8" utf8 "$OUT"
check "40 x é: the name is 31 whole é, no U+FFFD" grep -q "\"model\": \"$E31\"," "$OUT"
tst eval "$T/e40.yaml"
check "40 x é: the table is valid UTF-8" utf8 "$OUT"
out_has "40 x é: the table names the model" "model    $E31 ("
tst eval "$T/e40.yaml" --csv
check "40 x é: CSV is valid UTF-8" utf8 "$OUT"
tst export "$T/e40.yaml" --to torchtitan
check "40 x é: the export is valid UTF-8" utf8 "$OUT"

# ---- 7: files that are not regular --------------------------------------------------
mkfifo "$T/fifo.yaml"
for args in "eval $T/fifo.yaml" "eval -m $T/fifo.yaml" "eval -c $T/fifo.yaml" "search $T/fifo.yaml" \
        "ilp $T/fifo.yaml" "export $T/fifo.yaml --to megatron" "validate $T/fifo.yaml"; do
    # shellcheck disable=SC2086
    tst $args
    expect_rc "FIFO: strata ${args%% *} ... exit 2" 2
    err_has "FIFO: strata ${args%% *} says what it is" "fifo.yaml: not a regular file (a FIFO)"
done
printf 'model: %s\ncluster: dgx-h100\ndevices: 8\n' "$T/fifo.yaml" >"$T/ref.yaml"
tst eval "$T/ref.yaml"
expect_rc "FIFO as a plan's model reference: exit 2" 2
err_has "FIFO as a plan's model reference: file:line:col and what it is" "ref.yaml:1:8: "
tst eval -m /dev/null
expect_rc "/dev/null as a model: exit 2" 2
err_has "/dev/null as a model: a character device" "/dev/null: not a regular file (a character device)"
tst eval -c "$ROOT/presets"
expect_rc "a directory as a cluster: exit 2" 2
err_has "a directory as a cluster: says so" "presets: Is a directory"
if command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sock.yaml" 2>/dev/null; then
    tst eval "$T/sock.yaml"
    expect_rc "a socket as a plan: exit 2" 2
    err_has "a socket as a plan: says so" "not a regular file (a socket)"
else
    skip "a socket as a plan" "python3 cannot make a Unix socket here"
fi
# validate: a directory whose entries include a FIFO and a directory named *.yaml
mkdir -p "$T/cases/sub.yaml"
ls "$ROOT"/tests/validation/public/*.yaml | head -n 3 | while read -r f; do cp "$f" "$T/cases/"; done
mkfifo "$T/cases/zz-fifo.yaml"
tst validate "$T/cases"
expect_rc "validate: a FIFO among the cases: exit 1 (a file could not be evaluated)" 1
err_has "validate: names the FIFO" "zz-fifo.yaml: not a regular file (a FIFO)"
err_has "validate: names the directory" "sub.yaml: Is a directory"
out_has "validate: the other cases are reported" "validated "
tst validate "$T/nonexistent"
expect_rc "validate: a missing path: exit 2" 2
err_has "validate: a missing path says which call failed and why" "nonexistent: stat: No such file or directory"

# ---- 7: the atomic save (exports here; plan_save in test_io_hostile.c) ----------------
mkdir -p "$T/out"
( umask 077; exec "$STRATA" export --to megatron -o "$T/out/u077.sh" ) >/dev/null 2>&1
check "save: a new script follows umask 077 (0700: the Megatron-LM export is executable)" [ "$(stat -c %a "$T/out/u077.sh")" = 700 ]
( umask 022; exec "$STRATA" export --to megatron -o "$T/out/u022.sh" ) >/dev/null 2>&1
check "save: a new script follows umask 022 (0755)" [ "$(stat -c %a "$T/out/u022.sh")" = 755 ]
( umask 022; exec "$STRATA" export --to deepspeed --approximate -o "$T/out/u022.json" ) >/dev/null 2>&1
check "save: a new config follows umask 022 (0644, not executable)" [ "$(stat -c %a "$T/out/u022.json")" = 644 ]
printf 'old\n' >"$T/out/r644.sh"
chmod 644 "$T/out/r644.sh"
tst export --to megatron -o "$T/out/r644.sh"
check "save: a script over a 644 file becomes 755 (x where r)" [ "$(stat -c %a "$T/out/r644.sh")" = 755 ]
printf 'old\n' >"$T/out/suid.sh"
chmod 4755 "$T/out/suid.sh"
tst export --to megatron -o "$T/out/suid.sh"
check "save: replacing a 4755 file gives 755 (no set-user-ID)" [ "$(stat -c %a "$T/out/suid.sh")" = 755 ]
chmod 2750 "$T/out/suid.sh"
tst export --to megatron -o "$T/out/suid.sh"
check "save: replacing a 2750 file gives 750 (no set-group-ID)" [ "$(stat -c %a "$T/out/suid.sh")" = 750 ]
# temporary files of killed saves: a dead PID's go, a running one's stays
sleep 0 & dead=$!
wait $dead
printf 'half\n' >"$T/out/.plan.sh.strata-tmp.$dead"
printf 'busy\n' >"$T/out/.plan.sh.strata-tmp.$$"
tst export --to megatron -o "$T/out/plan.sh"
expect_rc "save with a stale temporary beside it: exit 0" 0
check "save: the temporary of a dead PID is removed" [ ! -e "$T/out/.plan.sh.strata-tmp.$dead" ]
check "save: the temporary of a running PID is kept" [ -e "$T/out/.plan.sh.strata-tmp.$$" ]
rm -f "$T/out/.plan.sh.strata-tmp.$$"
# a save killed before its rename leaves the old file and one temporary; the next cleans it
printf 'old\n' >"$T/out/k.sh"
( trap '' XFSZ; ulimit -f 1; exec "$STRATA" export --to megatron -o "$T/out/k.sh" ) >/dev/null 2>"$ERR"
check "save onto a full disk: the old file stays" grep -qx old "$T/out/k.sh"
err_re "save onto a full disk: names write and its reason" "write \.k\.sh\.strata-tmp\.[0-9]+: File too large \(the previous file is unchanged\)"
# 255-byte names
long=$(printf 'n%.0s' $(seq 251)).sh
tst export --to megatron -o "$T/out/$long"
expect_rc "save: a 255-byte file name: exit 0" 0
check "save: the 255-byte file exists, no temporary beside it" \
    eval '[ -s "$T/out/$long" ] && [ -z "$(ls -A "$T/out" | grep strata-tmp)" ]'
long=$(printf '\xc3\xa9%.0s' $(seq 125)).sh
tst export --to megatron -o "$T/out/$long"
expect_rc "save: a 253-byte name of é: exit 0" 0
tst export --to megatron -o "$T/no/such/dir/x.sh"
expect_rc "save into a missing directory: exit 2" 2
err_re "save into a missing directory: names open and its reason" \
    "cannot create a file in .*/no/such/dir: open \.x\.sh\.strata-tmp\.[0-9]+: No such file or directory"
tst export --to megatron -o "$T/fifo.yaml"
expect_rc "save onto a FIFO: exit 2" 2
err_has "save onto a FIFO: says what it is" "not a regular file (a FIFO)"

# ---- 8: escape sequences in names and keys ------------------------------------------
ESC='\u001b]0;pwned\u0007\u001b[2J\u009b31m'
cat >"$T/config.json" <<EOF
{"name": "$ESC", "hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 4,
 "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 32000}
EOF
cat >"$T/cluster.yaml" <<EOF
name: "c$ESC"
device: {name: "d$ESC", memory_gib: 80, peak_tflops: {bf16: 989, fp16: 989, fp8: 1979}, hbm_gbps: 3350}
node: {devices: 8, link_gbps: 450}
network: {link_gbps: 50, latency_us: 5}
EOF
for fmt in "" --csv; do
    tst eval -m "$T/config.json" -c "$T/cluster.yaml" -n 8 --tp 1 --pp 1 $fmt
    expect_rc "escapes in names: eval $fmt exit 0" 0
    check "escapes in names: eval $fmt prints no control character" no_ctl "$OUT"
done
out_has "escapes in names: the table shows them as ?" "?]0;pwned??[2J?31m"
tst eval -m "$T/config.json" -c "$T/cluster.yaml" -n 8 --tp 1 --pp 1 --json
check "escapes in names: JSON has no raw control character" no_ctl "$OUT"
out_has "escapes in names: JSON escapes them as \\u00XX" '"model": "\u001b]0;pwned\u0007\u001b[2J\u009b31m"'
tst search -m "$T/config.json" -c "$T/cluster.yaml" -n 8 --no-ilp --top 1
check "escapes in names: search prints no control character" no_ctl "$OUT"
tst ilp -m "$T/config.json" -c "$T/cluster.yaml" -n 8 --tp 1 --pp 2 --time-limit 2000
check "escapes in names: ilp prints no control character" no_ctl "$OUT"
tst export -m "$T/config.json" -c "$T/cluster.yaml" -n 8 --tp 1 --pp 1 --to megatron
check "escapes in names: export prints no control character" no_ctl "$OUT"
# messages that quote input: a key, a value, a preset name, an option, a path
printf 'model: llama3-8b\ncluster: dgx-h100\ndevices: 8\nstrategy: {"tp\\e[2J": 1}\n' >"$T/key.yaml"
tst eval "$T/key.yaml"
expect_rc "escape in a strategy key: exit 2" 2
check "escape in a strategy key: stderr has no control character" no_ctl "$ERR"
err_has "escape in a strategy key: shown as ?" "unknown strategy key 'tp?[2J'"
printf 'model: "llama\\e]0;x\\a"\ncluster: dgx-h100\ndevices: 8\n' >"$T/ref2.yaml"
tst eval "$T/ref2.yaml"
check "escape in a preset name: stderr has no control character" no_ctl "$ERR"
tst eval -m $'llama\e[2J' --schedule $'1f1b\e[2J'
check "escape in -m: stderr has no control character" no_ctl "$ERR"
tst eval --schedule $'1f1b\e[2J'
check "escape in an option value: stderr has no control character" no_ctl "$ERR"
tst eval $'--bad\e[2J'
check "escape in an unknown option: stderr has no control character" no_ctl "$ERR"
mkdir -p "$T/esc"
cp "$T/key.yaml" "$T/esc/"$'x\e[2J.yaml'
tst eval "$T/esc/"$'x\e[2J.yaml'
check "escape in a file name: stderr has no control character" no_ctl "$ERR"
# a data directory with a hostile preset, and a validation case with a hostile id
mkdir -p "$T/data/presets/models" "$T/data/presets/clusters" "$T/data/themes"
cp "$T/config.json" "$T/data/presets/models/evil.yaml"
cp "$T/cluster.yaml" "$T/data/presets/clusters/evil.yaml"
printf 'x\n' >"$T/data/presets/models/"$'e\e[2Jvil2.yaml'
STRATA_DATA=$T/data tst presets
check "presets: a hostile name and file name print no control character" no_ctl "$OUT"
out_has "presets: the hostile model is listed" "?]0;pwned??[2J?31m"
cat >"$T/case.yaml" <<EOF
id: "id$ESC"
model: llama3-8b
cluster: dgx-h100
devices: 8
strategy: {tp: 1, pp: 1, micro_batch: 1, global_batch: 8, seq_length: 2048, zero: 3}
expect: {step_time_s: 1.0, mem_convention: "r$ESC"}
EOF
tst validate "$T/case.yaml" -v
check "validate -v: a hostile id prints no control character" no_ctl "$OUT"
tst validate "$T/case.yaml" --csv
check "validate --csv: a hostile id prints no control character" no_ctl "$OUT"

# ---- 9: a 64 MiB input in a small multiple of its size ---------------------------------
MIB64=$((64 << 20))
head_json='{"model": "llama3-8b", "cluster": "dgx-h100", "devices": 8, "notes": ['
{ printf '%s' "$head_json"; yes '1,' | tr -d '\n' | head -c $((MIB64 - ${#head_json} - 8)); printf '1]}\n'; } >"$T/big.json"
{ printf 'model: llama3-8b\ncluster: dgx-h100\ndevices: 8\nnotes:\n'; yes -- '- 1' | head -c $((MIB64 - 80)); } >"$T/big.yaml"
check "64 MiB inputs: made at the limit" [ "$(stat -c %s "$T/big.json")" -le $MIB64 ] && [ "$(stat -c %s "$T/big.yaml")" -le $MIB64 ]
case $STRATA_BUILD in
*-san)
    skip "64 MiB inputs: peak memory" "sanitizer builds shadow every allocation" ;;
*)
    for f in big.json big.yaml; do
        if [ -x /usr/bin/time ]; then
            /usr/bin/time -f '%M' -o "$T/rss" timeout -k 2 120 "$STRATA" eval "$T/$f" >"$OUT" 2>"$ERR" </dev/null
            RC=$?
            kb=$(tail -n 1 "$T/rss")
            expect_rc "64 MiB $f: loads and evaluates (exit 0 or 1)" "0|1"
            # the tree was one 24-byte struct per node: about 25 times the input (1.6 GB);
            # the tape keeps it under 6 times (384 MiB) with the input buffer
            check "64 MiB $f: peak RSS ${kb} KiB under 6 x 64 MiB" [ "${kb:-999999999}" -lt $((6 * 65536)) ]
        else
            ( ulimit -v $((6 * 65536 + 65536)); exec timeout -k 2 120 "$STRATA" eval "$T/$f" ) >"$OUT" 2>"$ERR"
            RC=$?
            expect_rc "64 MiB $f: loads within 7 x 64 MiB of address space (exit 0 or 1)" "0|1"
        fi
    done ;;
esac
exit 0
