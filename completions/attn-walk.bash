# bash completion for attn-walk. Written by `make docs` from the command line's options
# (src/request/option_table.cpp, src/cli/cli_options.cpp): edit those, not this file.
_attn_walk() {
  local cur prev cmd=walk w
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$w" in bench|check) cmd=$w ;; esac
  done
  case "$cmd $prev" in
    "walk -s"|"walk --stage") COMPREPLY=($(compgen -W "tokens dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward gpt all bonus" -- "$cur")); return ;;
    "walk -f"|"walk --format") COMPREPLY=($(compgen -W "text json json-compact html" -- "$cur")); return ;;
    "walk -o"|"walk --output") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "walk --only")  # the step names of the --stage given
      local stage="dot-product" i
      for ((i = 1; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == --stage || ${COMP_WORDS[i]} == -s ]] && stage="${COMP_WORDS[i+1]}"
      done
      COMPREPLY=($(compgen -W "$(attn-walk --stage "$stage" --list-steps 2>/dev/null)" -- "${cur##*,}"))
      return ;;
    "walk -i"|"walk --input") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "walk --text-file") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "walk --init") COMPREPLY=($(compgen -W "rand randn" -- "$cur")); return ;;
    "walk --dropout-rng") COMPREPLY=($(compgen -W "default mkl" -- "$cur")); return ;;
    "walk --blas-kernel") COMPREPLY=($(compgen -W "cooperlake skylakex haswell" -- "$cur")); return ;;
    "walk --softmax-dim") COMPREPLY=($(compgen -W "-1 1" -- "$cur")); return ;;
    "walk --optimizer") COMPREPLY=($(compgen -W "adamw sgd" -- "$cur")); return ;;
    "walk --weights") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "walk --lang") COMPREPLY=($(compgen -W "en zh" -- "$cur")); return ;;
    "walk --heatmap-scale") COMPREPLY=($(compgen -W "fixed matrix" -- "$cur")); return ;;
    "walk --color") COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    "walk --random-input"|"walk --text"|"walk --embed-dim"|"walk --max-tokens"|"walk -q"|"walk --query"|"walk --seed"|"walk --d-out"|"walk --heads"|"walk --dropout"|"walk --attn-dropout"|"walk --batch"|"walk --torch-threads"|"walk --kv-groups"|"walk --window"|"walk --rope-base"|"walk --block"|"walk --latent-dim"|"walk --steps"|"walk --lr"|"walk --weight-decay"|"walk --grad-step"|"walk --layer"|"walk --head"|"walk --max-new-tokens"|"walk --max-input-mb")
      return ;;  # a value to type
    "bench --format") COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
    "bench --save-output") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "bench --weights") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "bench --tokens"|"bench --d-model"|"bench --heads"|"bench --batch"|"bench --repeat"|"bench --threads"|"bench --seed")
      return ;;  # a value to type
    "check -s"|"check --stage") COMPREPLY=($(compgen -W "tokens dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward gpt" -- "$cur")); return ;;
    "check -f"|"check --format") COMPREPLY=($(compgen -W "text json html" -- "$cur")); return ;;
    "check -o"|"check --output") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "check --lang") COMPREPLY=($(compgen -W "en zh" -- "$cur")); return ;;
    "check -i"|"check --input") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "check --text-file") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "check --init") COMPREPLY=($(compgen -W "rand randn" -- "$cur")); return ;;
    "check --dropout-rng") COMPREPLY=($(compgen -W "default mkl" -- "$cur")); return ;;
    "check --blas-kernel") COMPREPLY=($(compgen -W "cooperlake skylakex haswell" -- "$cur")); return ;;
    "check --softmax-dim") COMPREPLY=($(compgen -W "-1 1" -- "$cur")); return ;;
    "check --optimizer") COMPREPLY=($(compgen -W "adamw sgd" -- "$cur")); return ;;
    "check --weights") COMPREPLY=($(compgen -f -- "$cur")); return ;;
    "check --rtol"|"check --atol"|"check --random-input"|"check --text"|"check --embed-dim"|"check --max-tokens"|"check -q"|"check --query"|"check --seed"|"check --d-out"|"check --heads"|"check --dropout"|"check --attn-dropout"|"check --batch"|"check --torch-threads"|"check --steps"|"check --lr"|"check --weight-decay"|"check --grad-step")
      return ;;  # a value to type
  esac
  case $cmd in
    walk)
      if (( COMP_CWORD == 1 )) && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "bench check" -- "$cur"))
      else COMPREPLY=($(compgen -W "--stage --format --output --list-stages --list-steps --only --input --random-input --text --text-file --embed-dim --max-tokens --query --seed --d-out --heads --dropout --attn-dropout --batch --qkv-bias --init --dropout-rng --blas-kernel --softmax-dim --torch-threads --kv-groups --window --rope-base --block --latent-dim --steps --lr --weight-decay --grad-step --optimizer --weights --layer --head --max-new-tokens --explain --lang --heatmap --heatmap-scale --color --step --stats --max-input-mb --help --version" -- "$cur")); fi ;;
    bench) COMPREPLY=($(compgen -W "--tokens --d-model --heads --batch --repeat --threads --seed --format --no-probe --save-output --gpt --weights --backward --help" -- "$cur")) ;;
    check)  # an option, or the dump
      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--stage --format --output --lang --rtol --atol --input --random-input --text --text-file --embed-dim --max-tokens --query --seed --d-out --heads --dropout --attn-dropout --batch --qkv-bias --init --dropout-rng --blas-kernel --softmax-dim --torch-threads --steps --lr --weight-decay --grad-step --optimizer --weights --help" -- "$cur"))
      else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
  esac
}
complete -F _attn_walk attn-walk
