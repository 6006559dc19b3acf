#!/usr/bin/env bash
# The one-way data flow of DESIGN.md section 1, checked on the #include lines of every
# .c/.h under src/: a layer includes headers of its own layer and of the layers below it.
#
#   core    core
#   io      core io
#   solve   core solve
#   script  core io solve script
#   cli     core io solve script cli
#   tui     anything (the top; so is src/main.c, the dispatch)
#
# An include is resolved as the compiler does with -Isrc: "x.h" first next to the file,
# then under src/; <x.h> under src/. What resolves to no file under src/ (<stdio.h>,
# <lua.h>, ...) is not a layer's header and is not checked here. One PASS per rule; a
# FAIL per offending include, naming file:line.
. "$(dirname "$0")/_lib.sh"

LAYERS="core io solve script cli tui"

# allowed LAYER: the layers LAYER may include
allowed() {
    case $1 in
    core) echo "core" ;;
    io) echo "core io" ;;
    solve) echo "core solve" ;;
    script) echo "core io solve script" ;;
    cli) echo "core io solve script cli" ;;
    tui) echo "$LAYERS" ;;
    esac
}

# layer_of PATH: the layer of a path under src/ ("main" for src/main.c, "?" otherwise)
layer_of() {
    local d=${1#src/}
    case $1 in
    src/main.c) echo main; return ;;
    src/*/*) d=${d%%/*} ;;
    *) echo "?"; return ;;
    esac
    case " $LAYERS " in *" $d "*) echo "$d" ;; *) echo "?" ;; esac
}

# resolve FILE DELIM NAME: the included file as a normalised path from the root, or
# nothing when the include is not a file under src/
resolve() {
    local c=""
    if [ "$2" = '"' ] && [ -f "${1%/*}/$3" ]; then
        c=${1%/*}/$3
    elif [ -f "src/$3" ]; then
        c=src/$3
    fi
    [ -n "$c" ] || return 0
    case /$c/ in */./* | */../* | *//*) c=$(realpath -m --relative-to=. "$c") ;; esac
    case $c in src/*) echo "$c" ;; esac
}

files=$(find src -type f \( -name '*.c' -o -name '*.h' \) | sort)
if [ -z "$files" ]; then
    fail "layers: src/ has .c/.h files" "none found under $(pwd)/src"
    exit 0
fi

# every file belongs to a layer (a new directory must be given its rule here first)
declare -A LAYER
for f in $files; do
    LAYER[$f]=$(layer_of "$f")
done
bad=0
for f in $files; do
    if [ "${LAYER[$f]}" = "?" ]; then
        fail "layers: every file under src/ is in a layer ($LAYERS) or is src/main.c" "$f"
        bad=1
    fi
done
[ "$bad" -eq 0 ] && pass "layers: every file under src/ is in a layer ($LAYERS) or is src/main.c"

# #include, opening delimiter, name, closing delimiter
INC_RE='^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"])([^>"]*)([>"])'

# file:line:text of every #include, once
grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' $files >"$T/includes"

for layer in $LAYERS; do
    ok=$(allowed "$layer")
    rule="layers: src/$layer includes only $(echo "$ok" | sed 's|\([a-z]*\)|\1/|g')"
    nfiles=0
    nbad=0
    for f in $files; do
        [ "${LAYER[$f]}" = "$layer" ] && nfiles=$((nfiles + 1))
    done
    if [ "$nfiles" -eq 0 ]; then
        fail "$rule" "no file in src/$layer/ (run from the repository root?)"
        continue
    fi
    while IFS= read -r hit; do
        f=${hit%%:*}
        rest=${hit#*:}
        line=${rest%%:*}
        text=${rest#*:}
        [[ $text =~ $INC_RE ]] || continue
        delim=${BASH_REMATCH[1]}
        name=${BASH_REMATCH[2]}
        close=${BASH_REMATCH[3]}
        target=$(resolve "$f" "$delim" "$name")
        [ -n "$target" ] || continue
        tl=$(layer_of "$target")
        case " $ok " in
        *" $tl "*) ;;
        *)
            fail "$rule" "$f:$line includes $delim$name$close ($target, layer $tl)"
            nbad=$((nbad + 1))
            ;;
        esac
    done < <(grep -E "^src/$layer/" "$T/includes")
    [ "$nbad" -eq 0 ] && pass "$rule ($nfiles files)"
done

# The libraries stay in their layers: the core includes no curses, Lua, GLPK or libyaml
# header; curses only in src/tui, GLPK only in src/solve, libyaml only in src/io.
lib_rule() { # lib_rule NAME REGEX ALLOWED_DIRS...
    local name=$1 re=$2
    shift 2
    local bad
    bad=$(grep -nHE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($re)" $files | while IFS=: read -r f l rest; do
        ok=0
        for d in "$@"; do case $f in src/$d/*) ok=1 ;; esac; done
        [ "$ok" = 1 ] || echo "$f:$l"
    done)
    if [ -z "$bad" ]; then pass "layers: $name headers only in src/{$(IFS=,; echo "$*")}"
    else fail "layers: $name headers only in src/{$(IFS=,; echo "$*")}" "$(echo $bad)"; fi
}
lib_rule curses 'n?curses(w)?\.h|ncursesw/' tui
lib_rule Lua 'lua\.h|lauxlib\.h|lualib\.h' script cli
lib_rule GLPK 'glpk\.h' solve
lib_rule libyaml 'yaml\.h' io
exit 0
