#!/usr/bin/env bash
# Saving never loses the previous file, also when the disk fills up mid-write. A full disk
# is simulated with the file-size limit (ulimit -f: writes past it fail with EFBIG, with
# SIGXFSZ ignored, as a write to a full disk fails with ENOSPC): the write into the
# temporary file fails, the old file must stay byte-identical, no temporary may be left,
# and the command must say why (exit 2). Exports and TUI saves share io/atomic.c.
. "$(dirname "$0")/_lib.sh"
mkdir -p "$T/d"
OLD=$T/d/plan.megatron.sh
printf '# the previous export, which must survive\n' >"$OLD"
cp "$OLD" "$T/old.copy"
(
    trap '' XFSZ
    ulimit -f 1   # 1 KiB: the Megatron export of the default plan is larger
    exec "$STRATA" export --to megatron -o "$OLD"
) >"$OUT" 2>"$ERR"
RC=$?
expect_rc "export onto a full disk: exit 2" 2
check "export onto a full disk: the previous file is intact" cmp -s "$OLD" "$T/old.copy"
check "export onto a full disk: no temporary left" [ "$(ls -A "$T/d")" = "plan.megatron.sh" ]
err_re "export onto a full disk: says why" "(too large|No space|File too large|write)"

# the same export without the limit replaces the file completely
st export --to megatron -o "$OLD"
expect_rc "export with room: exit 0" 0
check "export with room: file replaced" grep -q -- "--tensor-model-parallel-size" "$OLD"
check "export with room: no temporary left" [ "$(ls -A "$T/d")" = "plan.megatron.sh" ]
