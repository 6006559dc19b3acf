#!/usr/bin/env bash
# Never lose a user's work (issue 21, items 1 and 2), through the real binary in tmux:
# - `o` and `:e` refuse to drop unsaved changes (`:e!` forces); the undo history belongs to
#   one file: the repro `strata a.yaml`, `j j l`, `o b.yaml`, `u`, `w` must not write
#   a.yaml's edits into b.yaml (before: `o` dropped them silently and `u` brought them
#   back under b.yaml's name);
# - `[+]` is the difference from the saved plan: undoing back to it clears it, Ctrl-R
#   redoes and brings it back;
# - saving over (`:w FILE`) or exporting over (`:export ...`) an existing file asks once;
# - Ctrl-C and SIGHUP with unsaved changes leave `.NAME.strata-recover` beside the plan,
#   offered on the next start (y recovers, then w saves and removes it);
# - :pin and :set reject an unknown key when typed, naming the nearest; unknown commands
#   suggest the nearest; :messages lists the messages and M shows the last one whole;
# - `--theme nosuch` is an error before the screen opens, like `:theme nosuch`.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

mkdir -p "$T/w"
cp tests/golden/dense.yaml "$T/w/a.yaml"
cp tests/golden/moe.yaml "$T/w/b.yaml"
cp "$T/w/a.yaml" "$T/a.orig"
cp "$T/w/b.yaml" "$T/b.orig"
st eval "$T/w/b.yaml" --json
cp "$OUT" "$T/b.json"
cd "$T/w" || exit 2
has_plus() { screen | head -n 1 | grep -Fq "[+]"; }
no_plus() { ! has_plus; }

# --- the repro: strata a.yaml, j j l, o b.yaml, u, w
tui_start 80 24 -- a.yaml
tcheck "safety: started" wait_for "Timeline"
keys j j l
tcheck "edit: a knob moved" wait_for "→"
tcheck "edit: [+] in the header" has_plus
keys o
tcheck "o with unsaved changes: refused, says how" wait_for "unsaved changes: w saves them"
check "o: no open prompt" eval '! screen | grep -Fq "open plan:"'
typed ":e b.yaml"
keys Enter
tcheck ":e with unsaved changes: refused, names :e!" wait_for ":e! b.yaml opens it"
typed ":e! b.yaml"
keys Enter
tcheck ":e! opens the other plan" wait_for "opened b.yaml"
tcheck ":e!: no [+] on the fresh file" no_plus
keys u
tcheck "u after opening: nothing to undo (a.yaml's history stays with a.yaml)" wait_for "nothing to undo"
keys w
tcheck "w: saved b.yaml" wait_for "saved b.yaml"
st eval "$T/w/b.yaml" --json
check "b.yaml still evaluates as the original b.yaml (none of a.yaml's edits)" cmp -s "$OUT" "$T/b.json"
check "a.yaml untouched" cmp -s "$T/w/a.yaml" "$T/a.orig"

# --- [+] is the difference from the saved plan; redo
keys j l
wait_for "→"
tcheck "change: [+]" has_plus
keys u
tcheck "undo back to the saved plan: [+] gone" wait_until no_plus
tcheck "undo: says it is the saved plan" wait_for "back to the saved plan"
keys C-r
tcheck "Ctrl-R redoes" wait_for "redone"
tcheck "redo: [+] again" has_plus
keys u
wait_until no_plus

# --- overwriting asks once
typed ":w a.yaml"
keys Enter
tcheck ":w over another existing file: asks" wait_for "a.yaml exists: overwrite it? (y/n)"
keys n
tcheck "n: not overwritten" wait_for "not overwritten: a.yaml"
check "n: a.yaml untouched" cmp -s "$T/w/a.yaml" "$T/a.orig"
echo "keep me" >"$T/w/x.sh"
typed ":export megatron x.sh"
keys Enter
tcheck ":export over an existing file: asks" wait_for "x.sh exists: overwrite it? (y/n)"
keys Escape
tcheck "Esc: not overwritten" wait_for "not overwritten: x.sh"
check "Esc: the file is untouched" grep -Fxq "keep me" "$T/w/x.sh"
typed ":export megatron x.sh"
keys Enter
wait_for "overwrite it?"
keys y
tcheck "y: exported" wait_for "exported x.sh"
check "y: the file was replaced" eval '! grep -Fxq "keep me" "$T/w/x.sh"'
typed ":export megatron x.sh"
keys Enter
tcheck "the same export again: no second question" wait_for "exported x.sh"

# --- keys checked when entered; nearest suggestions; the message log
typed ":pin tpp=3"
keys Enter
tcheck ":pin with an unknown key: rejected at once with the nearest" wait_for "did you mean 'tp'?"
check ":pin: nothing pinned" eval '! grep -Fq "tpp" "$T/w/b.yaml"'
typed ":set nosuch=1"
keys Enter
tcheck ":set with an unknown key: rejected" wait_for "unknown strategy key 'nosuch'"
typed ":set shedule=1f1b"
keys Enter
tcheck ":set: the nearest key" wait_for "did you mean 'schedule'?"
typed ":evn"
keys Enter
tcheck "unknown command: the nearest" wait_for "did you mean ':even'?"
keys M
tcheck "M: the last message in full" wait_for "the last message"
tcheck "M: its whole text (the list of commands at the end)" wait_for "search, even, help)"
keys q
typed ":messages"
keys Enter
tcheck ":messages: the log" wait_for "messages, oldest first"
tcheck ":messages: older messages are there" wait_for "undone: back to the saved plan"
keys q
keys q
tcheck "quit" wait_exit
check "quit: exit 0" [ "$EXIT_RC" = 0 ]

# --- Ctrl-C with unsaved changes leaves a recovery file, offered on the next start
tui_start 80 24 -- a.yaml
wait_for "Timeline"
keys j l
wait_for "→"
keys C-c
tcheck "Ctrl-C: exits" wait_exit
check "Ctrl-C: exit 130" [ "$EXIT_RC" = 130 ]
check "Ctrl-C: terminal restored" stty_restored
check "Ctrl-C: .a.yaml.strata-recover beside the plan" [ -s "$T/w/.a.yaml.strata-recover" ]
check "Ctrl-C: says where" grep -Fq ".a.yaml.strata-recover" "$T/stderr"
check "Ctrl-C: a.yaml untouched" cmp -s "$T/w/a.yaml" "$T/a.orig"
tui_start 80 24 -- a.yaml
tcheck "restart: offers the recovery file" wait_for "interrupted session are in"
typed ":recover"
keys Enter
tcheck ":recover: recovered" wait_for "recovered the unsaved changes"
tcheck ":recover: [+] (not saved yet)" has_plus
check ":recover: the recovery file is gone (its changes are in the session)" [ ! -e "$T/w/.a.yaml.strata-recover" ]
keys w
tcheck "w: saved" wait_for "saved a.yaml"
"$STRATA" eval "$T/w/a.yaml" --json >"$T/w/a.json" 2>/dev/null
st eval "$T/w/a.yaml" --json
expect_rc "the recovered and saved a.yaml evaluates" 0
st eval "$T/a.orig" --json
check "the saved a.yaml has the change (another strategy than the original)" eval '! cmp -s "$OUT" "$T/w/a.json"'
keys q
wait_exit

# --- SIGHUP (the SSH session dropped) with unsaved changes
tui_start 80 24 -- b.yaml
wait_for "Timeline"
keys j l
wait_for "→"
pid=$(pgrep -P "$(tm display -p -t "$S" '#{pane_pid}')" | head -n 1)
kill -HUP "$pid"
tcheck "SIGHUP: exits" wait_exit
check "SIGHUP: exit 129" [ "$EXIT_RC" = 129 ]
check "SIGHUP: .b.yaml.strata-recover" [ -s "$T/w/.b.yaml.strata-recover" ]
tui_start 80 24 -- b.yaml
tcheck "restart after SIGHUP: offers it" wait_for "interrupted session are in"
keys j
tcheck "the offer takes no key: j moves the selection" wait_until eval 'screen | grep -Eq "▸  tp"'
typed ":recover delete"
keys Enter
tcheck ":recover delete: deleted" wait_for "deleted"
check ":recover delete: the recovery file is gone" [ ! -e "$T/w/.b.yaml.strata-recover" ]
keys q
wait_exit
check "no unsaved changes: q quits at once, exit 0" [ "$EXIT_RC" = 0 ]

# --- SIGHUP while a search candidate is previewed: the recovery file keeps the user's
# plan (their unsaved gpipe), not the candidate the panes show
cp "$T/a.orig" c.yaml
tui_start 80 24 -- c.yaml
wait_for "Timeline"
typed ":set schedule=gpipe"
keys Enter
tcheck "preview: the user's edit" wait_for "schedule 1f1b → gpipe"
keys s
tcheck "preview: the search table" wait_for "vs cur"
keys v
tcheck "preview: the panes show the candidate" wait_for "Enter applies"
pid=$(pgrep -P "$(tm display -p -t "$S" '#{pane_pid}')" | head -n 1)
kill -HUP "$pid"
tcheck "SIGHUP in preview: exits" wait_exit
check "SIGHUP in preview: .c.yaml.strata-recover" [ -s "$T/w/.c.yaml.strata-recover" ]
check "SIGHUP in preview: the recovery file has the user's gpipe, not the candidate" \
    grep -Eq "schedule: gpipe" "$T/w/.c.yaml.strata-recover"
check "SIGHUP in preview: c.yaml untouched" cmp -s c.yaml "$T/a.orig"
rm -f "$T/w/.c.yaml.strata-recover"

# --- the same while an ILP plan is on trial (i): the recovery file has no ILP split
cp "$T/a.orig" c.yaml
tui_start 80 24 -- c.yaml
wait_for "Timeline"
typed ":set schedule=gpipe"
keys Enter
wait_for "schedule 1f1b → gpipe"
keys i
tcheck "ILP trial: keep or discard" wait_for "Enter/y keeps"
pid=$(pgrep -P "$(tm display -p -t "$S" '#{pane_pid}')" | head -n 1)
kill -HUP "$pid"
tcheck "SIGHUP in an ILP trial: exits" wait_exit
check "SIGHUP in an ILP trial: the user's plan (gpipe, no ILP stage_layers)" \
    eval 'grep -Eq "schedule: gpipe" "$T/w/.c.yaml.strata-recover" && ! grep -q stage_layers "$T/w/.c.yaml.strata-recover"'
rm -f "$T/w/.c.yaml.strata-recover"

# --- Ctrl-C without changes leaves nothing
tui_start 80 24 -- a.yaml
wait_for "Timeline"
keys C-c
wait_exit
check "Ctrl-C without changes: no recovery file" [ ! -e "$T/w/.a.yaml.strata-recover" ]

# --- --theme nosuch is an error, as :theme nosuch is
st --theme nosuch
expect_rc "--theme nosuch: exit 2" 2
err_has "--theme nosuch: says so, as :theme does" "no theme 'nosuch'"
err_has "--theme nosuch: lists the themes" "themes: builtin"
check "safety: no sanitizer report" no_sanitizer
