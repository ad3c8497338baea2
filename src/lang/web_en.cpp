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
      {"web.notebook_section", "Chapter {chapter}'s notebook, section {section}"},
      {"web.reference_code", "The reference code in the book's repository: {file}"},
      // --heatmap-scale matrix (the terminal's and the page's heatmaps).
      {"heatmap.scale_matrix", "scale of this matrix"},
  };
  return t;
}

}  // namespace attn
