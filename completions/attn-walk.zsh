#compdef attn-walk
# zsh completion for attn-walk. Written by `make docs` from the command line's options
# (src/request/option_table.cpp, src/cli/cli_options.cpp): edit those, not this file.

# --only: the step names of the --stage given, separated by commas.
_attn_walk_steps() {
  local stage=dot-product i
  for (( i = 2; i < CURRENT; i++ )); do
    [[ ${words[i]} == (-s|--stage) ]] && stage=${words[i+1]}
  done
  _values -s , step ${(f)"$(attn-walk --stage "$stage" --list-steps 2>/dev/null)"}
}

_attn_walk() {
  local cmd=walk
  if (( CURRENT > 2 )) && [[ ${words[2]} == (bench|check) ]]; then
    cmd=${words[2]}
    words=("${words[1]}" "${(@)words[3,-1]}")
    (( CURRENT-- ))
  fi
  case $cmd in
    walk)
      if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then
        local -a commands=('bench:Time the efficient MultiHeadAttention forward (causal, dropout 0) o...' 'check:Grade your own tensors (a JSON dump {"step_name": [...], ...}) agai...')
        _describe -t commands command commands
      else
        _arguments -S : \
          '(-s --stage)'{-s,--stage}'[Which part of the chapter to walk\: tokens, dot-product, softmax, tr...]:STAGE:(tokens dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward gpt all bonus)' \
          '(-f --format)'{-f,--format}'[Output format\: text, json, json-compact or html]:format:(text json json-compact html)' \
          '(-o --output)'{-o,--output}'[Write to FILE (whole or not at all); '\''-'\'' is stdout]:FILE:_files' \
          '--list-stages[List the stages and exit]' \
          '--list-steps[List the step names of --stage, one per line, and exit]' \
          '--only[Keep only these steps (comma-separated names, see --list-steps)]:NAME,...:_attn_walk_steps' \
          '(-i --input)'{-i,--input}'[Embeddings (.json or .npy); '\''-'\'' reads JSON from stdin (default\: the...]:FILE:_files' \
          '--random-input[TxD\: use torch.randn(T, D) embeddings drawn after torch.manual_seed...]:TxD: ' \
          '--text[Tokenize this text with GPT-2'\''s BPE and embed it as chapter 2 does ...]:TEXT: ' \
          '--text-file[The same for the text of a UTF-8 file]:FILE:_files' \
          '--embed-dim[Width D of the token and position embeddings of --text]:D: ' \
          '--max-tokens[Longest --text accepted, in tokens (GPT-2'\''s context length)]:N: ' \
          '(-q --query)'{-q,--query}'[The query token x(N), 1-based (the chapter uses x(2))]:N: ' \
          '--seed[Replace both seeds (123 and 789) with S]:S: ' \
          '--d-out[Output width of W_query/W_key/W_value (at least 1)]:N: ' \
          '--heads[Number of attention heads (multi-head; must divide --d-out)]:H: ' \
          '--dropout[Dropout rate of the dropout demonstrations, in \[0, 1\]]:P: ' \
          '--attn-dropout[Dropout rate inside CausalAttention and the multi-head modules, in ...]:P: ' \
          '--batch[How many copies of the inputs form the batch (at least 1)]:B: ' \
          '--qkv-bias[Give the nn.Linear W_query/W_key/W_value a bias]' \
          '--init[nn.Parameter(torch.rand(...)) or torch.randn(...)]:init:(rand randn)' \
          '--dropout-rng[Which PyTorch dropout kernel to reproduce\: default (the book) or mk...]:dropout-rng:(default mkl)' \
          '--blas-kernel[Whose OpenBLAS sgemm order to reproduce\: cooperlake, skylakex or ha...]:KERNEL:(cooperlake skylakex haswell)' \
          '--softmax-dim[CausalAttention'\''s softmax\: -1 over the keys (the chapter) or 1 over...]:softmax-dim:(-1 1)' \
          '--torch-threads[torch.get_num_threads() of the PyTorch run to match (only --softmax...]:N: ' \
          '--kv-groups[Key/value groups of GroupedQueryAttention (gqa; must divide --heads)]:G: ' \
          '--window[Sliding-window size in tokens (swa; at least 1)]:W: ' \
          '--rope-base[RoPE'\''s theta_base (rope), in \[1, 1e12\]]:B: ' \
          '--block[Keys per block of flash attention (flash; at least 1)]:B: ' \
          '--latent-dim[Latent size of MultiHeadLatentAttention (mla; at least 1)]:L: ' \
          '--steps[Training steps of the backward stage (at least 1)]:N: ' \
          '--lr[Learning rate of the backward stage'\''s optimizer, in (0, 10\]]:LR: ' \
          '--weight-decay[Weight decay of the backward stage'\''s optimizer, in \[0, 10\] (default...]:WD: ' \
          '--grad-step[Which training step'\''s gradients the backward stage shows (1..--steps)]:N: ' \
          '--optimizer[Optimizer of the backward stage\: adamw or sgd]:optimizer:(adamw sgd)' \
          '--weights[GPT-2 weights for --stage gpt and multi-head\: the book'\''s .safetenso...]:FILE:_files' \
          '--layer[The block whose attention --stage gpt opens (multi-head with --weig...]:L: ' \
          '--head[The head of --layer'\''s block to show alone, from 0]:H: ' \
          '--max-new-tokens[Token ids --stage gpt generates greedily (generate_text_simple)]:N: ' \
          '--explain[Explain each step\: what, why, and how shapes change]' \
          '--lang[Language of headings and explanations\: en, zh]:lang:(en zh)' \
          '--heatmap[Draw attention matrices in the terminal]' \
          '--heatmap-scale[Heatmap colours\: fixed (weights and masks on 0 to 1, scores on the ...]:heatmap-scale:(fixed matrix)' \
          '--color[Colour\: auto (terminal only, honours NO_COLOR), always, never]:color:(auto always never)' \
          '--step[Pause after each step until Enter ('\''q'\'' quits); terminals only]' \
          '--stats[Report the time taken and the peak memory on stderr]' \
          '--max-input-mb[Refuse input files and streams larger than N MiB]:N: ' \
          '(-h --help)'{-h,--help}'[Print this help message and exit]' \
          '--version[Display program version information and exit]'
      fi ;;
    bench)
      _arguments -S : \
        '--tokens[T, the number of tokens]:T: ' \
        '--d-model[D = d_in = d_out]:D: ' \
        '--heads[H (must divide D)]:H: ' \
        '--batch[B]:B: ' \
        '--repeat[Timed forwards after one warm-up]:R: ' \
        '--threads[Threads (0\: all cores)]:N: ' \
        '--seed[torch.manual_seed before randn and the module]:S: ' \
        '--format[text or json]:format:(text json)' \
        '--no-probe[Skip the FMA probe that measures the machine'\''s peak]' \
        '--save-output[Write the output y to FILE as .npy (float32)]:FILE:_files' \
        '--gpt[Time chapter 4'\''s whole GPTModel forward (every block, final_norm, o...]' \
        '--weights[The GPT-2 weights file --gpt runs (the formats of --stage gpt)]:FILE:_files' \
        '--backward[Time the forward plus y.backward(grad_y), grad_y = torch.randn_like...]' \
        '(-h --help)'{-h,--help}'[Print this help message and exit]' ;;
    check)
      _arguments -S : \
        ':DUMP:_files' \
        '(-s --stage)'{-s,--stage}'[The stage to grade (default\: the one whose steps the dump names most)]:STAGE:(tokens dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward gpt)' \
        '(-f --format)'{-f,--format}'[text, json or html]:format:(text json html)' \
        '(-o --output)'{-o,--output}'[Write to FILE (whole or not at all); '\''-'\'' is stdout]:FILE:_files' \
        '--lang[Language of the report\: en, zh]:lang:(en zh)' \
        '--rtol[Relative tolerance of '\''close'\'']:R: ' \
        '--atol[Absolute tolerance of '\''close'\'']:A: ' \
        '(-i --input)'{-i,--input}'[Embeddings (.json or .npy); '\''-'\'' reads JSON from stdin (default\: the...]:FILE:_files' \
        '--random-input[TxD\: use torch.randn(T, D) embeddings drawn after torch.manual_seed...]:TxD: ' \
        '--text[Tokenize this text with GPT-2'\''s BPE and embed it as chapter 2 does ...]:TEXT: ' \
        '--text-file[The same for the text of a UTF-8 file]:FILE:_files' \
        '--embed-dim[Width D of the token and position embeddings of --text]:D: ' \
        '--max-tokens[Longest --text accepted, in tokens (GPT-2'\''s context length)]:N: ' \
        '(-q --query)'{-q,--query}'[The query token x(N), 1-based (the chapter uses x(2))]:N: ' \
        '--seed[Replace both seeds (123 and 789) with S]:S: ' \
        '--d-out[Output width of W_query/W_key/W_value (at least 1)]:N: ' \
        '--heads[Number of attention heads (multi-head; must divide --d-out)]:H: ' \
        '--dropout[Dropout rate of the dropout demonstrations, in \[0, 1\]]:P: ' \
        '--attn-dropout[Dropout rate inside CausalAttention and the multi-head modules, in ...]:P: ' \
        '--batch[How many copies of the inputs form the batch (at least 1)]:B: ' \
        '--qkv-bias[Give the nn.Linear W_query/W_key/W_value a bias]' \
        '--init[nn.Parameter(torch.rand(...)) or torch.randn(...)]:init:(rand randn)' \
        '--dropout-rng[Which PyTorch dropout kernel to reproduce\: default (the book) or mk...]:dropout-rng:(default mkl)' \
        '--blas-kernel[Whose OpenBLAS sgemm order to reproduce\: cooperlake, skylakex or ha...]:KERNEL:(cooperlake skylakex haswell)' \
        '--softmax-dim[CausalAttention'\''s softmax\: -1 over the keys (the chapter) or 1 over...]:softmax-dim:(-1 1)' \
        '--torch-threads[torch.get_num_threads() of the PyTorch run to match (only --softmax...]:N: ' \
        '--steps[Training steps of the backward stage (at least 1)]:N: ' \
        '--lr[Learning rate of the backward stage'\''s optimizer, in (0, 10\]]:LR: ' \
        '--weight-decay[Weight decay of the backward stage'\''s optimizer, in \[0, 10\] (default...]:WD: ' \
        '--grad-step[Which training step'\''s gradients the backward stage shows (1..--steps)]:N: ' \
        '--optimizer[Optimizer of the backward stage\: adamw or sgd]:optimizer:(adamw sgd)' \
        '--weights[GPT-2 weights for --stage gpt and multi-head\: the book'\''s .safetenso...]:FILE:_files' \
        '(-h --help)'{-h,--help}'[Print this help message and exit]' ;;
  esac
}

_attn_walk "$@"
