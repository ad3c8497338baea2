// The chapter's code as a learner types it, with the slips learners make.
//
// Each learner_<stage>() recomputes one stage's tensors the way the notebook cells do, with
// some Slips switched on (W_query where W_key belongs, no division by sqrt(d_k), the wrong
// triangle masked, ...), and returns them by step name. With no slips it computes the
// walk's own numbers (tests/test_check.cpp holds it to that), so a learner's tensor that one
// of these reproduces differs from the chapter by exactly those slips. Diagnoses
// (diagnoses.h) are built on this.
#pragma once

#include <map>
#include <string>

#include "core/config.h"
#include "core/tensor.h"

namespace attn {

struct Slips {
  bool qk_weights_swapped = false;   // queries = x @ W_key, keys = x @ W_query
  bool scores_transposed = false;    // keys @ queries.T instead of queries @ keys.T
  enum class Scale { SqrtDk, None, Dk } scale = Scale::SqrtDk;  // what the scores are divided by
  bool softmax_over_queries = false; // torch.softmax(..., dim=-2): columns sum to 1, not rows
  enum class Renorm { MaskedSimple, MaskSimple, AttnWeights } renorm = Renorm::MaskedSimple;
  bool keepdim_missing = false;      // row_sums = masked_simple.sum(dim=-1): (T,), not (T, 1)
  enum class Mask { Causal, Swapped, Diagonal } mask = Mask::Causal;  // tril/triu swapped; diagonal hidden
  bool masked_fill_discarded = false;  // attn_scores.masked_fill(...) without _ and unassigned
  bool scores_kept_by_reference = false;  // attn_scores kept, then masked_fill_ changed it in place
  bool dropout_scaled_by_p = false;  // kept values * 1/p instead of 1/(1-p)
  bool heads_by_view = false;        // keys.view(b, heads, T, head_dim), no transpose
  bool context_not_transposed = false;  // (attn_weights @ values) merged without .transpose(1, 2)
  bool merge_discarded = false;      // context_vec.contiguous().view(...) not assigned
  bool out_proj_missing = false;     // the merged heads returned without self.out_proj
  bool ex31_copy_swapped = false;    // exercise 3.1: sa_v1.W_query = Parameter(sa_v2.W_key.weight.T)
  bool ex31_not_transposed = false;  // exercise 3.1: Parameter(sa_v2.W_query.weight), no .T
  bool same_head_twice = false;      // second_head = a[0, 0, :, :]
  // The module built without the torch.manual_seed before it: "sa_v1", "sa_v2",
  // "exercise_3_1_v2", "dropout_attn_weights", "causal_attention", "wrapper", "mha",
  // "exercise_3_2". Its draws continue the stream of what the chapter ran before it.
  std::string no_reseed_before;
};

using LearnerSteps = std::map<std::string, Tensor>;

LearnerSteps learner_trainable(const Config& cfg, const Slips& s);   // 3.4
LearnerSteps learner_causal(const Config& cfg, const Slips& s);      // 3.5.1
LearnerSteps learner_dropout(const Config& cfg, const Slips& s);     // 3.5.2-3.5.3
LearnerSteps learner_multi_head(const Config& cfg, const Slips& s);  // 3.6

// The stage's learner_*() by --stage name; an empty map for stages without one.
LearnerSteps learner_stage(const std::string& stage, const Config& cfg, const Slips& s);

}  // namespace attn
