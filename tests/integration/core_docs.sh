#!/bin/sh
# The manual pages against the sources they describe:
#  1. every command of common/commands.def has an entry in fabricctl(8)
#     (".It Ic <CLI words> ..."), with exactly the options and the number of
#     positional words its argument spec declares, and "admin" in the entry
#     of an ADMIN command; no entry names a command that does not exist;
#  2. every option letter of fabricd's and fabricctl's getopt strings is
#     documented;
#  3. every configuration key (the CFG_F_* field tables, plus the keys that
#     custom parsers compare against) is an ".It Ic <key>" of fabricd.yaml(5),
#     every module has its ".Ss" section, and the page's example parses
#     (fabricd -n);
#  4. the three pages pass mandoc -Tlint, or groff's mdoc checks;
#  5. the README's quick start is two commands and its docs index and the
#     links in docs/ resolve; every command has an example in README or docs/;
#     every file of the build they name is one the build makes; the README's
#     first sections are Quick start, Try it, Documentation, then the
#     figures, and Quick start stays short;
#  6. the keys whose change takes a restart (the CFG_RESTART tables) are
#     exactly those fabricd.yaml(5) lists under Reload and fabricctl(8)'s
#     reload entry names.
# Needs only the source tree (and FABRICD_BUILD for the example check).
set -u
src=${FABRICD_SRC:?FABRICD_SRC is not set}
ctl=$src/man/fabricctl.8
yml=$src/man/fabricd.yaml.5
dmn=$src/man/fabricd.8
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
errors=0

bad() {
	echo "core_docs: $*"
	errors=$((errors + 1))
}

for f in "$ctl" "$yml" "$dmn" "$src/common/commands.def"; do
	[ -r "$f" ] || { echo "core_docs: cannot read $f"; exit 1; }
done

# ---- 1. fabricctl(8) against commands.def ----

# One line per command: access<TAB>words<TAB>spec (all commands are one line).
sed -n 's/^CMD([^,]*,[^"]*"[^"]*"[^,]*,[[:space:]]*\([A-Z]*\),[^"]*"\([^"]*\)",[^"]*"\([^"]*\)".*/\1	\2	\3/p' \
	"$src/common/commands.def" > "$T/cmds"
ncmd=$(grep -c '^CMD(' "$src/common/commands.def")
[ "$ncmd" -gt 0 ] || bad "no CMD( line found in commands.def"
[ "$(wc -l < "$T/cmds")" -eq "$ncmd" ] ||
	bad "could parse only $(wc -l < "$T/cmds") of $ncmd CMD lines of commands.def"

# The entries of the COMMANDS section: words<TAB>options<TAB>positionals<TAB>
# whether the entry's text says "admin".  The CLI words are the lower-case
# words after "Ic"; an option is "Fl Fl name", its value the "Ar" group
# after it (written "name=" then, as in the spec); every other "Ar" word is
# a positional.
awk '
function flush() {
	if (words != "")
		printf "%s\t%s\t%d\t%d\n", words, opts, npos, admin
	words = ""
}
/^\.Sh / { flush(); incmds = ($2 == "COMMANDS"); next }
!incmds { next }
/^\.(Ss|El)/ && depth == 0 { flush() }
/^\.Bl/ { if (words != "") depth++; next }
/^\.El/ { if (depth > 0) depth--; next }
/^\.It Ic / && depth == 0 {
	flush()
	n = split($0, t, /[ \t]+/)
	i = 3
	while (i <= n && t[i] ~ /^[a-z][a-z0-9-]*$/) {
		words = words (words == "" ? "" : " ") t[i]
		i++
	}
	opts = ""; npos = 0; admin = 0; pending = 0
	while (i <= n) {
		if (t[i] == "Fl" && t[i + 1] == "Fl") {
			opts = opts " " t[i + 2]
			pending = 1
			i += 3
			continue
		}
		if (t[i] == "Ar") {
			i++
			k = 0
			while (i <= n && t[i] !~ /^[A-Z][a-z]$/) {
				if (t[i] != "|")
					k++
				i++
			}
			if (pending)
				opts = opts "="		# the option takes a value
			else
				npos += k
			pending = 0
			continue
		}
		pending = 0
		i++
	}
	next
}
words != "" && /admin/ { admin = 1 }
END { flush() }
' "$ctl" > "$T/entries"

tab=$(printf '\t')
while IFS="$tab" read -r access words spec; do
	entry=$(awk -F '\t' -v w="$words" '$1 == w' "$T/entries")
	if [ -z "$entry" ]; then
		bad "fabricctl.8 has no \".It Ic $words\" entry (commands.def: $words $spec)"
		continue
	fi
	[ "$(printf '%s\n' "$entry" | wc -l)" -eq 1 ] || bad "fabricctl.8 has two entries for \"$words\""
	want_opts=""
	want_pos=0
	for a in $spec; do
		case $a in
		--*=*) o=${a#--}; want_opts="$want_opts ${o%%=*}=" ;;
		--*) want_opts="$want_opts ${a#--}" ;;
		*) want_pos=$((want_pos + 1)) ;;
		esac
	done
	have_opts=$(printf '%s\n' "$entry" | cut -f2)
	sorted() { printf '%s\n' $1 | sort | tr '\n' ' '; }
	[ "$(sorted "$want_opts")" = "$(sorted "$have_opts")" ] ||
		bad "fabricctl.8 \"$words\": options [$have_opts ] but commands.def declares [$want_opts ]"
	have_pos=$(printf '%s\n' "$entry" | cut -f3)
	[ "$have_pos" -eq "$want_pos" ] ||
		bad "fabricctl.8 \"$words\": $have_pos positional argument(s), commands.def declares $want_pos ($spec)"
	if [ "$access" = ADMIN ] && [ "$(printf '%s\n' "$entry" | cut -f4)" != 1 ]; then
		bad "fabricctl.8 \"$words\": an ADMIN command whose entry does not say admin"
	fi
done < "$T/cmds"

# No entry for a command that does not exist.
cut -f2 "$T/cmds" | sort > "$T/words.def"
cut -f1 "$T/entries" | sort > "$T/words.man"
for w in $(comm -13 "$T/words.def" "$T/words.man" | tr ' ' '+'); do
	bad "fabricctl.8 documents \"$(echo "$w" | tr '+' ' ')\", which commands.def does not declare"
done

# ---- 2. command-line options ----

letters() {	# the option letters of the first getopt string in a file
	sed -n 's/.*getopt[_a-z]*(argc, argv, "\([^"]*\)".*/\1/p' "$1" | head -1 | tr -d '+:' |
		sed 's/./& /g'
}
# -h is in fabricd's getopt string only to land in usage(), like any
# unknown option; it is not an option of its own.
for c in $(letters "$src/daemon/main.c"); do
	[ "$c" = h ] && continue
	grep -q "^\.It Fl $c\( \|\$\)" "$dmn" || bad "fabricd.8 does not document -$c"
done
for c in $(letters "$src/cli/fabricctl.c"); do
	grep -q "^\.It .*Fl $c\( \|\$\)" "$ctl" || bad "fabricctl.8 does not document -$c"
done

# ---- 3. fabricd.yaml(5) against the configuration parsers ----

mods="daemon sm partitions roce_qos health validation"
# Keys of the cfg_field tables: CFG_F_*("key", ...) and literal rows
# { "key", CFG_CUSTOM, ... }.
for d in $mods; do
	cat "$src/$d"/*.c
done | sed -n -e 's/.*CFG_F_[A-Z]*("\([a-z0-9_]*\)".*/\1/p' \
	-e 's/.*{ *"\([a-z0-9_]*\)", *CFG_[A-Z]*,.*/\1/p' > "$T/keys"
[ -s "$T/keys" ] || bad "no CFG_F_ key found in the sources"

# Sections parsed by hand, without a cfg_field table: partitions (section
# and partition keys), roce_qos (section, profile and nested keys) and the
# validation profiles.  These keys are listed here, and every key their
# parsers compare against (strcmp(k|name, "key")) is taken too, so that a
# key added there cannot go undocumented.
custom_parsers="partitions/yaml.c roce_qos/config.c validation/module.c"
custom_keys="enabled default_membership tenants pkey full limited
	root interfaces poll_interval remediate profile
	base dcbx trust dscp_map pfc ets buffer maxrate ecn roce_tos nccl_tc pfc_storm_prevention
	priorities cable_length prio_tc tsa bandwidth prio2buffer sizes
	mode cnp_dscp cnp_priority params
	min_busbw warn_busbw rdma_min_gbps"
printf '%s\n' $custom_keys >> "$T/keys"
for f in $custom_parsers; do
	[ -r "$src/$f" ] || { bad "custom parser $f is gone: update core_docs.sh"; continue; }
	sed -n 's/.*strcmp(\(k\|name\), "\([a-z0-9_]*\)").*/\2/p' "$src/$f"
done >> "$T/keys"

modnames=$(cat "$src"/*/module.c | sed -n 's/^[[:space:]]*\.name = "\([a-z_]*\)".*/\1/p')
[ -n "$modnames" ] || bad "no module name found in */module.c"
for m in $modnames; do
	grep -q "^\.Ss $m\$" "$yml" || bad "fabricd.yaml.5 has no \".Ss $m\" section"
	grep -q "^\.It Ic $m\( \|\$\)" "$dmn" || bad "fabricd.8 does not describe the $m module"
done
for k in $(sort -u "$T/keys"); do
	grep -q "^\.It Ic $k\( \|\$\)" "$yml" && continue
	grep -q "^\.Ss $k\$" "$yml" && continue		# a module's own section
	bad "fabricd.yaml.5 has no \".It Ic $k\" entry"
done

# The example in the page is a configuration fabricd accepts.
if [ -n "${FABRICD_BUILD:-}" ] && [ -x "$FABRICD_BUILD/fabricd" ]; then
	sed -n '/^\.Sh EXAMPLES/,/^\.Ed/p' "$yml" | sed '1,/^\.Bd/d; /^\.Ed/d' > "$T/example.yaml"
	if [ ! -s "$T/example.yaml" ]; then
		bad "fabricd.yaml.5 has no example"
	elif ! out=$("$FABRICD_BUILD/fabricd" -n -c "$T/example.yaml" 2>&1); then
		bad "fabricd.yaml.5's example is rejected: $out"
	fi
fi

# ---- 4. the pages are well-formed ----

if command -v mandoc >/dev/null 2>&1; then
	out=$(mandoc -Tlint -W warning "$ctl" "$yml" "$dmn" 2>&1) || bad "mandoc -Tlint: $out"
elif command -v groff >/dev/null 2>&1; then
	# groff exits 0 on mdoc usage errors: any diagnostic is a failure.
	for f in "$ctl" "$yml" "$dmn"; do
		out=$(groff -mandoc -z -ww "$f" 2>&1)
		[ -z "$out" ] || bad "groff -mandoc -z -ww $(basename "$f"): $out"
	done
else
	echo "core_docs: neither mandoc nor groff: page syntax not checked"
fi

# ---- 5. README and docs/ ----
#  The README's quick start stays two commands; it links every docs/*.md
#  and every link it has resolves; every relative link inside docs/
#  resolves; every command of commands.def is shown somewhere in README or
#  docs/ as "fabricctl WORDS".
readme=$src/README.md
n=$(sed -n '/^## Quick start/,/^## /p' "$readme" | sed -n '/^```sh/,/^```$/p' | grep -vc '^```')
[ "$n" -eq 2 ] || bad "README quick start has $n commands, not 2"
# The way in comes first (issue 42, point 9): the level-2 headings (outside
# code blocks) begin with Quick start, Try it, Documentation, then the
# figures; figures and detail go below them, not into Quick start.
awk '/^[ \t]*```/ { f = !f; next } !f && /^## / { sub(/^## +/, ""); print }' "$readme" |
    head -4 > "$T/heads"
i=0
for want in "Quick start" "Try it" "Documentation" "Measured against OpenSM"; do
	i=$((i + 1))
	have=$(sed -n "${i}p" "$T/heads")
	case $have in
	"$want"*) ;;
	*) bad "README's level-2 heading $i is \"$have\", not \"$want...\" (the order: Quick start, Try it, Documentation, Measured against OpenSM)" ;;
	esac
done
n=$(sed -n '/^## Quick start/,/^## /p' "$readme" | wc -l)
[ "$n" -le 25 ] || bad "README's Quick start is $n lines, over 25: put figures and detail below it"
# Files other branches add (issues 14, 15, 17 ops, 18): listed in the
# README before they are merged; remove a name here once it is in the tree.
pending=""
links() {	# FILE: the relative .md targets of its markdown links
	grep -o '](\([^)#:]*\.md\)' "$1" | sed 's/^](//'
}
for l in $(links "$readme"); do
	[ -f "$src/$l" ] && continue
	case " $pending " in *" ${l#docs/} "*) echo "core_docs: $l not in this tree yet" ;;
	*) bad "README links $l, which does not exist" ;; esac
done
for f in "$src"/docs/*.md; do
	[ -f "$f" ] || continue
	grep -q "](docs/$(basename "$f"))" "$readme" || bad "README does not link docs/$(basename "$f")"
	for l in $(links "$f"); do
		[ -f "$src/docs/$l" ] && continue
		case " $pending " in *" $l "*) ;; *) bad "docs/$(basename "$f") links $l, which does not exist" ;; esac
	done
done
cut -f2 "$T/cmds" | while read -r w; do
	grep -q "fabricctl\( --json\)\{0,1\} $w\b" "$readme" "$src"/docs/*.md || echo "$w"
done > "$T/undocumented"
for w in $(tr ' ' '+' < "$T/undocumented"); do
	bad "no example of \"fabricctl $(echo "$w" | tr '+' ' ')\" in README.md or docs/"
done

# A file of the build that the docs name (`build/X`, `$(O)/X`) is one the
# build makes: the Makefile names it as $(O)/X, or it is in the build
# folder (a folder, or what make sim leaves in build/sim/, is not checked).
grep -o '`\(build\|\$(O)\)/[^` ]*`' "$readme" "$src"/docs/*.md | tr -d '`' |
    sed 's|^[^:]*/||; s|:\$(O)/|:build/|' | sort -u > "$T/built"
while IFS=: read -r f p; do
	case $p in */|build/sim/*|*VERSION*) continue ;; esac
	grep -qF "\$(O)/${p#build/}" "$src/Makefile" && continue
	[ -n "${FABRICD_BUILD:-}" ] && [ -e "$FABRICD_BUILD/${p#build/}" ] && continue
	bad "$f names $p, which the build does not make"
done < "$T/built"

# ---- 6. the keys only a restart applies ----
# The CFG_RESTART tables (daemon/lifecycle.c and each module's restart_keys)
# decide what a reload refuses; fabricd.yaml(5)'s "Reload" list and the
# reload entry of fabricctl(8) name exactly their keys.
cat "$src"/*/*.c | sed -n 's/.*CFG_RESTART[_A-Z]*("\([a-z0-9_.]*\)".*/\1/p' | sort -u > "$T/rkeys"
[ -s "$T/rkeys" ] || bad "no CFG_RESTART key found in the sources"
sed -n '/^\.Ss Reload$/,/^\.S[sh] [A-Z]/p' "$yml" | sed -n 's/^\.It Ic //p' | tr -d ',' |
    tr ' ' '\n' | grep '^[a-z]' | sort -u > "$T/rkeys.yml"
sed -n '/^\.It Ic reload$/,/^\.El$/p' "$ctl" | sed -n 's/^\.Ic //p' | tr -d ',' |
    tr ' ' '\n' | grep '^[a-z]' | sort -u > "$T/rkeys.ctl"
for k in $(cat "$T/rkeys"); do
	grep -qx "$k" "$T/rkeys.yml" || bad "fabricd.yaml.5's Reload list lacks $k (a CFG_RESTART key)"
	grep -qx "$k" "$T/rkeys.ctl" || bad "fabricctl.8's reload entry lacks $k (a CFG_RESTART key)"
done
for k in $(cat "$T/rkeys.yml"); do
	grep -qx "$k" "$T/rkeys" || bad "fabricd.yaml.5's Reload list names $k, which reload applies in place"
done
for k in $(grep '\.' "$T/rkeys.ctl"); do
	grep -qx "$k" "$T/rkeys" || bad "fabricctl.8's reload entry names $k, which reload applies in place"
done

[ $errors -eq 0 ] || { echo "core_docs: $errors problem(s)"; exit 1; }
echo "core_docs: $ncmd commands, $(sort -u "$T/keys" | wc -l) configuration keys documented"
exit 0
