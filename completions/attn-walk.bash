# bash completion for attn-walk
_attn_walk() {
  local cur prev
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  local opts="--stage --input --random-input --text --text-file --embed-dim --max-tokens --format --output --list-stages --list-steps --only
    --query --seed --d-out --heads --dropout --attn-dropout --batch --qkv-bias --init --dropout-rng --blas-kernel
    --softmax-dim --torch-threads --kv-groups --window --rope-base --block --latent-dim
    --explain --lang --heatmap --heatmap-scale --color --step --stats --max-input-mb --help --version"
  local bench_opts="--tokens --d-model --heads --batch --repeat --threads --seed --format --help"
  local check_opts="--stage --format --output --lang --rtol --atol --input --random-input --query --seed
    --d-out --heads --dropout --attn-dropout --batch --qkv-bias --init --dropout-rng --blas-kernel
    --softmax-dim --torch-threads --help"
  local in_bench=0 in_check=0 w
  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    [[ $w == bench ]] && in_bench=1
    [[ $w == check ]] && in_check=1
  done
  case "$prev" in
    -s|--stage)  # the stages as --list-stages lists them (indented), then the two groups
      local stages
      stages="$(attn-walk --list-stages 2>/dev/null | awk '/^  /{print $1}')"
      stages="${stages:-tokens dot-product softmax trainable causal dropout multi-head}"
      if (( in_check )); then COMPREPLY=($(compgen -W "$stages" -- "$cur"));
      else COMPREPLY=($(compgen -W "$stages all bonus" -- "$cur")); fi
      return ;;
    -f|--format)
      if (( in_bench || in_check )); then COMPREPLY=($(compgen -W "text json" -- "$cur"));
      else COMPREPLY=($(compgen -W "text json html" -- "$cur")); fi
      return ;;
    --init) COMPREPLY=($(compgen -W "rand randn" -- "$cur")); return ;;
    --dropout-rng) COMPREPLY=($(compgen -W "default mkl" -- "$cur")); return ;;
    --blas-kernel) COMPREPLY=($(compgen -W "cooperlake skylakex haswell" -- "$cur")); return ;;
    --softmax-dim) COMPREPLY=($(compgen -W "-1 1" -- "$cur")); return ;;
    --lang) COMPREPLY=($(compgen -W "en zh" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    --heatmap-scale) COMPREPLY=($(compgen -W "fixed matrix" -- "$cur")); return ;;
    -i|--input|-o|--output|--text-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --only)
      local stage="dot-product" i
      for ((i = 1; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == --stage || ${COMP_WORDS[i]} == -s ]] && stage="${COMP_WORDS[i+1]}"
      done
      COMPREPLY=($(compgen -W "$(attn-walk --stage "$stage" --list-steps 2>/dev/null)" -- "${cur##*,}"))
      return ;;
  esac
  if (( in_bench )); then
    COMPREPLY=($(compgen -W "$bench_opts" -- "$cur"))
  elif (( in_check )); then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$check_opts" -- "$cur"));
    else COMPREPLY=($(compgen -f -- "$cur")); fi  # the dump
  elif (( COMP_CWORD == 1 )) && [[ $cur != -* ]]; then
    COMPREPLY=($(compgen -W "bench check" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  fi
}
complete -F _attn_walk attn-walk
