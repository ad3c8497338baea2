#!/usr/bin/env bash
# `cmake --install` puts the binary, the man page and the bash completion in place,
# the man page renders, and the completion completes stage names and step names.
set -euo pipefail
build_dir="$1"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix" > /dev/null
test -x "$prefix/bin/attn-walk" || { echo "missing bin/attn-walk"; exit 1; }
man_page="$prefix/share/man/man1/attn-walk.1"
test -s "$man_page" || { echo "missing man page"; exit 1; }
completion="$prefix/share/bash-completion/completions/attn-walk"
test -s "$completion" || { echo "missing bash completion"; exit 1; }

# The man page renders and documents every stage and the exit codes.
rendered="$(MANWIDTH=100 man -l "$man_page" 2>/dev/null || groff -man -Tutf8 "$man_page")"
for word in dot-product softmax trainable causal dropout multi-head "EXIT STATUS" NO_COLOR; do
  grep -q -- "$word" <<< "$rendered" || { echo "man page lacks $word"; exit 1; }
done

# The completion offers stages after --stage and step names after --only.
export PATH="$prefix/bin:$PATH"
source "$completion"
COMP_WORDS=(attn-walk --stage ca); COMP_CWORD=2; _attn_walk
[[ " ${COMPREPLY[*]} " == *" causal "* ]] || { echo "stage completion: ${COMPREPLY[*]}"; exit 1; }
COMP_WORDS=(attn-walk --stage causal --only mask); COMP_CWORD=4; _attn_walk
[[ " ${COMPREPLY[*]} " == *" mask_simple "* ]] || { echo "step completion: ${COMPREPLY[*]}"; exit 1; }
COMP_WORDS=(attn-walk bench --d); COMP_CWORD=2; _attn_walk
[[ " ${COMPREPLY[*]} " == *" --d-model "* ]] || { echo "bench completion: ${COMPREPLY[*]}"; exit 1; }
COMP_WORDS=(attn-walk check mine.json --rt); COMP_CWORD=3; _attn_walk
[[ " ${COMPREPLY[*]} " == *" --rtol "* ]] || { echo "check completion: ${COMPREPLY[*]}"; exit 1; }
COMP_WORDS=(attn-walk ch); COMP_CWORD=1; _attn_walk
[[ " ${COMPREPLY[*]} " == *" check "* ]] || { echo "subcommand completion: ${COMPREPLY[*]}"; exit 1; }
echo "install layout, man page and completion: ok"
