// English texts of the page's controls (the web page, src/render/page/, and src/web/).
#include "lang/lang.h"

namespace attn {

LangTable web_en() {
  LangTable t;
  t.code = "en";
  t.ui = {
      {"web.controls", "Settings"},
      {"web.embeddings", "Embeddings: one row per token"},
      {"web.token", "token"},
      {"web.add_token", "+ token"},
      {"web.remove_token", "remove this token"},
      {"web.add_dim", "+ dimension"},
      {"web.remove_dim", "− dimension"},
      {"web.paste", "Or paste embeddings as JSON ({\"tokens\": [...], \"embeddings\": [[...], ...]} or [[...], ...]):"},
      {"web.apply", "Use this JSON"},
      {"web.reset", "Back to the chapter's six tokens"},
      {"web.kept", "The walk below is still the last one that worked."},
      {"web.static", "This page was written by attn-walk --format html: its walk is fixed. `make web` builds the page that recomputes when you change the settings."},
      {"web.timing", "computed in {} ms"},
      {"web.loading", "Computing the walk…"},
      // While a long walk runs in the page's worker: how far it has come, how long it has run.
      {"web.progress_wait", "Computing… {} s"},
      {"web.progress", "Computing… steps done: {}, the last {}; {} s"},
      {"web.progress_render", "Computing… all {} steps done, writing the page; {} s"},
      {"web.progress_part", "Computing… steps done: {}, now {} ({} of {}); {} s"},
      {"web.stop", "Stop"},
      {"web.stopped", "Stopped before the walk was done: the settings are back to those of the walk below."},
      {"web.engine_failed", "The engine stopped: {}"},
      {"web.notebook_section", "Chapter {chapter}'s notebook, section {section}"},
      {"web.reference_code", "The reference code in the book's repository: {file}"},
      // --heatmap-scale matrix (the terminal's and the page's heatmaps).
      {"heatmap.scale_matrix", "scale of this matrix"},
      // The page's controls: the groups, the options' plain names (the flag is shown beside
      // each), the text box and the table.
      {"web.group.input", "Input"},
      {"web.group.model", "The model"},
      {"web.group.show", "What to show"},
      {"web.more", "More settings (they do not change this stage)"},
      {"web.opt.stage", "Stage"},
      {"web.opt.text", "Your own text"},
      {"web.opt.embed-dim", "Embedding size"},
      {"web.opt.max-tokens", "Most tokens"},
      {"web.opt.query", "Query token"},
      {"web.opt.seed", "Random seed"},
      {"web.opt.d-out", "Output width"},
      {"web.opt.heads", "Heads"},
      {"web.opt.qkv-bias", "Bias in W_query, W_key, W_value"},
      {"web.opt.init", "Initial weights"},
      {"web.opt.dropout", "Dropout rate"},
      {"web.opt.attn-dropout", "Dropout on attention weights"},
      {"web.opt.batch", "Batch size"},
      {"web.opt.dropout-rng", "Dropout kernel"},
      {"web.opt.blas-kernel", "OpenBLAS matrix-product kernel"},
      {"web.opt.softmax-dim", "Softmax over"},
      {"web.opt.torch-threads", "PyTorch threads"},
      {"web.opt.kv-groups", "Key/value groups"},
      {"web.opt.window", "Window"},
      {"web.opt.rope-base", "RoPE base"},
      {"web.opt.block", "Keys per block"},
      {"web.opt.latent-dim", "Latent size"},
      {"web.opt.lang", "Language"},
      {"web.opt.heatmap-scale", "Heatmap colours"},
      {"web.text_placeholder", "Type a sentence: it becomes GPT-2's tokens and their embeddings"},
      {"web.text_replaces", "Your text replaces the table: these are its tokens, GPT-2's pieces (↳ continues the character before it). Clear the text to edit the table again."},
      {"web.cell_not_number", "row {}, column {}: '{}' is not a number"},
  };
  return t;
}

}  // namespace attn
