#!/usr/bin/env bash
# Install like a Unix tool: `make install DESTDIR=...` puts the binary, presets, themes,
# Lua recipes and both man pages under the prefix; the installed binary finds its data
# there (relocatable: bin/../share/strata); user presets under $XDG_CONFIG_HOME/strata
# extend the built-in ones; `make uninstall` removes everything it installed.
. "$(dirname "$0")/_lib.sh"
san=
case $STRATA_BUILD in *-san) san=SANITIZE=1 ;; esac
D=$T/root
# shellcheck disable=SC2086
if make -s --no-print-directory install DESTDIR="$D" BUILD="$STRATA_BUILD" $san >"$T/install.log" 2>&1; then
    pass "make install DESTDIR: succeeds"
else
    fail "make install DESTDIR" "$(tail -5 "$T/install.log")"
fi
B=$D/usr/local/bin/strata
check "install: binary" [ -x "$B" ]
check "install: model presets" [ -f "$D/usr/local/share/strata/presets/models/llama3-70b.yaml" ]
check "install: cluster presets" [ -f "$D/usr/local/share/strata/presets/clusters/dgx-h100.yaml" ]
check "install: themes" [ -f "$D/usr/local/share/strata/themes/dark.yaml" ]
check "install: Lua recipes" [ -n "$(ls "$D"/usr/local/share/strata/lua/*.lua 2>/dev/null)" ]
check "install: strata.1" [ -f "$D/usr/local/share/man/man1/strata.1" ]
check "install: strata-lua.7" [ -f "$D/usr/local/share/man/man7/strata-lua.7" ]

# the installed binary, away from the source tree, with an empty user config
mkdir -p "$T/elsewhere" "$T/cfg"
(cd "$T/elsewhere" && env -u STRATA_DATA XDG_CONFIG_HOME="$T/cfg" "$B" eval -m llama3-8b -c dgx-h100 -n 8 --tp 8 --pp 1 --gbs 8 --json) >"$OUT" 2>"$ERR"
RC=$?
expect_rc "installed binary: evaluates a preset plan" 0
out_has "installed binary: JSON result" '"step_s"'
(cd "$T/elsewhere" && env -u STRATA_DATA XDG_CONFIG_HOME="$T/cfg" "$B" run "$D/usr/local/share/strata/lua/zero_levels.lua") >"$OUT" 2>"$ERR"
RC=$?
expect_rc "installed binary: runs an installed recipe" 0

# a user preset extends the built-in ones
mkdir -p "$T/cfg/strata/presets/models"
cat >"$T/cfg/strata/presets/models/tiny-gpt.yaml" <<'Y'
name: Tiny GPT
hidden_size: 1024
intermediate_size: 4096
num_hidden_layers: 8
num_attention_heads: 16
vocab_size: 32000
hidden_act: gelu
Y
(cd "$T/elsewhere" && env -u STRATA_DATA XDG_CONFIG_HOME="$T/cfg" "$B" presets) >"$OUT" 2>"$ERR"
RC=$?
out_has "user preset: listed by presets" "tiny-gpt"
out_has "user preset: built-ins still listed" "llama3-70b"
(cd "$T/elsewhere" && env -u STRATA_DATA XDG_CONFIG_HOME="$T/cfg" "$B" eval -m tiny-gpt -c dgx-h100 -n 8 --tp 1 --pp 1 --gbs 8) >"$OUT" 2>"$ERR"
RC=$?
expect_rc "user preset: usable with -m" 0

# --help and --version
"$B" --version >"$OUT" 2>"$ERR"; RC=$?
expect_rc "--version: exit 0" 0
out_has "--version: names strata" "strata "
"$B" --help >"$OUT" 2>"$ERR"; RC=$?
expect_rc "--help: exit 0" 0
out_has "--help: lists search" "strata search"

# shellcheck disable=SC2086
make -s --no-print-directory uninstall DESTDIR="$D" BUILD="$STRATA_BUILD" $san >"$T/uninstall.log" 2>&1
check "uninstall: binary gone" [ ! -e "$B" ]
check "uninstall: data gone" [ ! -e "$D/usr/local/share/strata" ]
check "uninstall: man pages gone" [ ! -e "$D/usr/local/share/man/man1/strata.1" ]
