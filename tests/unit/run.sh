#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh BUILD_DIR: run the host-side unit tests.
#
# BUILD_DIR is the automake build folder: it holds bin/cats,
# cats-helper-amd64-linux and the C tests tests/unit/test_* (built by
# `make check`). The tests run in a temporary directory, and the CLI is
# checked on the trace they write. Prints "ok NAME" / "FAIL NAME" per test;
# exits non-zero if anything failed.
set -u

if [ $# -ne 1 ]; then
   echo "usage: $0 BUILD_DIR" >&2
   exit 2
fi
build=$(cd "$1" && pwd) || exit 2
bin="$build/tests/unit"
cc=${CC:-gcc}
work=$(mktemp -d "${TMPDIR:-/tmp}/cats-unit.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
failed=0

for b in bin/cats cats-helper-amd64-linux tests/unit/test_trace \
         tests/unit/test_reuse tests/unit/test_helper \
         tests/unit/test_helper_input tests/unit/test_vcg \
         tests/unit/test_partition tests/unit/test_loops \
         tests/unit/test_stackvars; do
   if [ ! -x "$build/$b" ]; then
      echo "FAIL missing $build/$b"
      exit 1
   fi
done

# --- the C tests -----------------------------------------------------------
"$bin/test_trace" "$work" || failed=1
"$bin/test_reuse" "$work" || failed=1
"$bin/test_helper" "$build/cats-helper-amd64-linux" "$work" 2>"$work/helper.err" ||
   { failed=1; cat "$work/helper.err" >&2; }
"$bin/test_helper_input" || failed=1
"$bin/test_vcg" "$work" || failed=1
"$bin/test_partition" || failed=1
CC=$cc "$bin/test_loops" "$work" || failed=1
CC=$cc "$bin/test_stackvars" "$work" "$build/cats-helper-amd64-linux" || failed=1

# --- the CLI on the trace written by test_trace ---------------------------
cats="$build/bin/cats"
trace="$work/synth.cats"

check() {   # name expected-status command...
   name=$1
   want=$2
   shift 2
   "$@" >"$work/out" 2>"$work/err"
   got=$?
   if [ "$got" -eq "$want" ]; then
      echo "ok $name"
   else
      echo "FAIL $name (exit $got, expected $want)"
      cat "$work/err" >&2
      failed=1
   fi
}

expect() {   # name: the last command's stdout/stderr must match a pattern
   name=$1
   file=$2
   pattern=$3
   if grep -q -- "$pattern" "$work/$file"; then
      echo "ok $name"
   else
      echo "FAIL $name (no '$pattern' in $file)"
      failed=1
   fi
}

check cli_version 0 "$cats" --version
expect cli_version_text out "cats 0.1.0"
check cli_help 0 "$cats" --help
expect cli_help_lists_dump out "dump"
check cli_no_command 2 "$cats"
check cli_unknown_command 2 "$cats" frobnicate
expect cli_unknown_command_msg err "^cats: unknown command"
check cli_unknown_option 2 "$cats" dump --bogus "$trace"
check cli_missing_arg 2 "$cats" dump
check cli_missing_file 1 "$cats" dump "$work/nope.cats"
expect cli_missing_file_msg err "^cats: $work/nope.cats: "
check cli_foreign_file 1 "$cats" stat /bin/sh
expect cli_foreign_file_msg err "bad magic"

if [ -f "$trace" ]; then
   check cli_dump_text 0 "$cats" dump "$trace"
   expect cli_dump_text_loop out "loop  t.c:6"
   check cli_dump_json 0 "$cats" dump --json "$trace" -o "$work/d.json"
   if command -v python3 >/dev/null 2>&1; then
      check cli_dump_json_valid 0 python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "cats" and d["version"] == 7
assert [c["kind"] for c in d["contexts"]] == ["thread", "function", "loop"]
assert d["contexts"][2]["depth"] == 2
assert d["events"][0]["strides"] == [8] and d["events"][0]["pattern"] == "stride-1"
assert d["events"][2]["distinct"] == [16, 0, 40] and len(d["events"][2]["histogram"]) == 16
assert d["allocs"][1]["never_freed"] is True and d["allocs"][1]["alloc_loc"] is None
assert d["allocs"][1]["alloc_ctx"] is None
assert d["locs"][5]["inline_parent"] == 3 and d["locs"][0]["addr"] == "0x401000"
' "$work/d.json"
      check cli_export_valid 0 sh -c '
"$1" export --cats-viz "$2" -o "$3/v.json" && python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))[\"events\"]
types = [e[\"type\"] for e in ev]
assert types.count(\"allocation\") == 2 and types.count(\"deallocation\") == 1
assert types.count(\"scope_entry\") == 2 and types.count(\"scope_exit\") == 2
assert types.count(\"access\") == 6
for e in ev:
    assert {\"funcname\", \"filename\", \"line\", \"col\"} <= set(e)
" "$3/v.json"' sh "$cats" "$trace" "$work"
   fi
   check cli_stat 0 "$cats" stat "$trace"
   expect cli_stat_path out "main > loop (t.c:6)"
   expect cli_stat_peak out "peak footprint *4096"
   # An unwritable output: error, exit 1, and no file left behind.
   check cli_output_unwritable 1 "$cats" dump --json "$trace" \
      -o "$work/no-such-dir/out.json"
   check cli_export_needs_format 2 "$cats" export "$trace"
   # A corrupt trace is rejected with the reason.
   head -c 100 "$trace" >"$work/trunc.cats"
   check cli_truncated 1 "$cats" dump "$work/trunc.cats"
   expect cli_truncated_msg err "truncated"
   check cli_no_partial_output 1 "$cats" dump "$work/trunc.cats" \
      -o "$work/partial.txt"
   if [ -e "$work/partial.txt" ] || ls "$work" | grep -q '\.tmp\.'; then
      echo "FAIL cli_no_partial_output_file"
      failed=1
   fi
else
   echo "FAIL cli tests: no trace from test_trace"
   failed=1
fi

# --- `cats vcg` on the graphs written by test_vcg --------------------------
vtrace="$work/vcg.cats"

same() {   # name expected-file: the last command's stdout must be exactly it
   if cmp -s "$2" "$work/out"; then
      echo "ok $1"
   else
      echo "FAIL $1 (output differs)"
      diff "$2" "$work/out" >&2
      failed=1
   fi
}

if [ -f "$vtrace" ]; then
   check cli_vcg_stats 0 "$cats" vcg "$vtrace"
   cat >"$work/want" <<'EOF'
vertices 5
edges 7
inputs 2
outputs 2
register-intermediates 1
versions 9
coalescing 1.80
uses 11
in-degree 0 1.40 3
out-degree 0 1.40 2
weight 11
context-edges 8
word-size 8
EOF
   same cli_vcg_stats_text "$work/want"
   check cli_vcg_vertices 0 "$cats" vcg --vertices "$vtrace"
   cat >"$work/want" <<'EOF'
buf (t.c:5)+0 flags=in versions=1 weight=0
buf (t.c:5)+8 flags=in versions=1 weight=0
buf (t.c:5)+16 flags=out versions=2 weight=3
glob "q"\x0a\x01+0 flags=out versions=4 weight=6
[tmp#0 main t.c:7] flags=reg versions=1 weight=2
EOF
   same cli_vcg_vertices_text "$work/want"
   check cli_vcg_edges 0 "$cats" vcg "$vtrace" --edges
   cat >"$work/want" <<'EOF'
[tmp#0 main t.c:7] -> glob "q"\x0a\x01+0 uses=4 versions=1
buf (t.c:5)+0 -> [tmp#0 main t.c:7] uses=1 versions=1
buf (t.c:5)+0 -> buf (t.c:5)+16 uses=1 versions=1
buf (t.c:5)+16 -> [tmp#0 main t.c:7] uses=1 versions=1
buf (t.c:5)+16 -> buf (t.c:5)+16 uses=1 versions=1
buf (t.c:5)+8 -> buf (t.c:5)+16 uses=1 versions=1
buf (t.c:5)+8 -> glob "q"\x0a\x01+0 uses=2 versions=1
EOF
   same cli_vcg_edges_text "$work/want"
   LC_ALL=C sort "$work/out" >"$work/sorted"
   if cmp -s "$work/sorted" "$work/out"; then
      echo "ok cli_vcg_edges_sorted"
   else
      echo "FAIL cli_vcg_edges_sorted"
      failed=1
   fi
   check cli_vcg_metis 0 "$cats" vcg "$vtrace" --metis "$work/g.metis"
   cp "$work/g.metis" "$work/out"
   cat >"$work/want" <<'EOF'
5 6 011
1 3 1 5 1
1 3 1 4 2
3 1 1 2 1 5 1
6 2 2 5 4
2 1 1 3 1 4 4
EOF
   same cli_vcg_metis_text "$work/want"
   check cli_vcg_dot 0 "$cats" vcg "$vtrace" --dot "$work/g.dot"
   expect cli_vcg_dot_edge g.dot '^  v4 -> v3 \[label="uses=4 versions=1"\];$'
   check cli_vcg_graphml 0 "$cats" vcg "$vtrace" --graphml "$work/g.graphml"
   expect cli_vcg_graphml_label g.graphml '<data key="label">glob &quot;q&quot;'
   if command -v python3 >/dev/null 2>&1; then
      check cli_vcg_graphml_valid 0 python3 -c '
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
assert len(d.getElementsByTagName("node")) == 5
assert len(d.getElementsByTagName("edge")) == 7
' "$work/g.graphml"
   fi
   check cli_vcg_unwritable 1 "$cats" vcg "$vtrace" \
      --metis "$work/no-such-dir/g.metis"
   expect cli_vcg_unwritable_msg err "^cats: $work/no-such-dir/g.metis: "
   check cli_vcg_no_graph 1 "$cats" vcg "$trace"
   expect cli_vcg_no_graph_msg err \
      "^cats: $trace: no value communication graph in this trace$"
   # The commands that do not keep the graph still check it.
   for c in stat dump "export --cats-viz" vcg; do
      name=cli_bad_graph_$(echo "$c" | cut -d' ' -f1)
      check "$name" 1 "$cats" $c "$work/vcg-bad.cats"
      expect "${name}_msg" err "VCG vertex 1: out of order"
   done
   check cli_vcg_big_dot 1 "$cats" vcg "$work/vcg_big.cats" --dot "$work/big.dot"
   expect cli_vcg_big_dot_msg err "at most 20000 vertices"
   if [ -e "$work/big.dot" ]; then
      echo "FAIL cli_vcg_big_dot_no_file"
      failed=1
   fi
   check cli_vcg_big_metis 0 "$cats" vcg "$work/vcg_big.cats" \
      --metis "$work/big.metis"
   expect cli_vcg_big_metis_header big.metis "^20001 0 011$"
   check cli_vcg_corrupt 1 "$cats" vcg "$work/trunc.cats"
else
   echo "FAIL cli vcg tests: no trace from test_vcg"
   failed=1
fi

if [ -x "$work/loops_O0" ]; then
   check cli_loops 0 "$cats" loops "$work/loops_O0"
   expect cli_loops_output out "^[0-9]* loop 0x[0-9a-f]* "
fi
check cli_loops_not_elf 1 "$cats" loops /etc/passwd

if [ -x "$work/sv_O0_d5" ]; then
   check cli_stackvars 0 "$cats" stackvars "$work/sv_O0_d5"
   expect cli_stackvars_buf out "^0x[0-9a-f]* work -[0-9]* 512 buf$"
   expect cli_stackvars_name out "^0x[0-9a-f]* work -[0-9]* 32 name$"
fi
check cli_stackvars_not_elf 1 "$cats" stackvars /etc/passwd
check cli_stackvars_no_debug 0 "$cats" stackvars "$work/sv_nodebug"

exit $failed
