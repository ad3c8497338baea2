#include "stages/stages.h"

namespace attn {

const std::vector<StageInfo>& all_stages() {
  static const std::vector<StageInfo> stages = {
      {"dot-product", "3.3", "attention scores as dot products, softmax weights, context vectors",
       run_dot_product},
      {"softmax", "3.3.1", "normalising scores: sum, naive exp, and the stable softmax", run_softmax},
      {"trainable", "3.4", "W_query, W_key, W_value; scaled dot-product; SelfAttention_v1 and v2",
       run_trainable},
      {"causal", "3.5.1", "masking future tokens: the tril method and the -inf method", run_causal},
      {"dropout", "3.5.2", "dropout masks on attention weights; the CausalAttention class",
       run_dropout},
      {"multi-head", "3.6", "MultiHeadAttentionWrapper and MultiHeadAttention, every intermediate",
       run_multi_head},
  };
  return stages;
}

const StageInfo* find_stage(const std::string& name) {
  for (const auto& s : all_stages())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace attn
