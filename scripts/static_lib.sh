#!/bin/sh
# scripts/static_lib.sh CC NAME [DIR...] - how `make static` links library NAME: the path of
# libNAME.a (in the DIRs first, then where CC finds libraries), else -lNAME when libNAME.so
# exists, else -l:libNAME.so.N when only a versioned shared object does (Debian ships
# libltdl.so.7 without the development link or a .a), else -lNAME.
cc=$1 l=$2
shift 2
for d in "$@"; do
    [ -f "$d/lib$l.a" ] && { echo "$d/lib$l.a"; exit 0; }
done
a=$($cc -print-file-name="lib$l.a")
case $a in /*) echo "$a"; exit 0 ;; esac
s=$($cc -print-file-name="lib$l.so")
case $s in /*) echo "-l$l"; exit 0 ;; esac
for d in $($cc -print-search-dirs | sed -n 's/^libraries: =//p' | tr : ' '); do
    for f in "$d"/lib"$l".so.[0-9]*; do
        [ -e "$f" ] && { echo "-l:${f##*/}"; exit 0; }
    done
done
echo "-l$l"
