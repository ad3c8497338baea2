// English texts of the trainable stage (src/stages/trainable.cpp):
// section 3.4, scaled dot-product attention.
#include "lang/chapter.h"

#include <map>
#include <string>

namespace attn {

namespace {

// 3.4.1: the weight matrices and one query, step by step.
std::map<std::string, StepText> step_by_step_texts_en() {
  return {
      {"trainable/x_2",
       {"the query token {xq} = inputs[{q}]",
        "Section 3.4 first computes the context vector of one token, now with trainable "
        "weights. x_2 is that token's embedding, shape ({d_in},)."}},
      {"trainable/W_query",
       {"projects inputs to queries: nn.Parameter(torch.{init}({d_in}, {d_out}), "
        "requires_grad=False), seed {seed1}",
        "The query weight matrix W_q, shape ({d_in}, {d_out}), maps each {d_in}-dimensional "
        "embedding to a {d_out}-dimensional query. It is random now (torch.manual_seed({seed1})) "
        "and would be learned in training; requires_grad=False only keeps the printout short."}},
      {"trainable/W_key",
       {"projects inputs to keys: nn.Parameter(torch.{init}({d_in}, {d_out}), "
        "requires_grad=False), seed {seed1}",
        "W_k maps each embedding to a key, the vector the queries are compared with. It is "
        "drawn right after W_query from the same random generator."}},
      {"trainable/W_value",
       {"projects inputs to values: nn.Parameter(torch.{init}({d_in}, {d_out}), "
        "requires_grad=False), seed {seed1}",
        "W_v maps each embedding to a value, the vector that is actually mixed into the "
        "context vector. Three separate matrices let the model learn one role for matching "
        "(query and key) and another for content (value)."}},
      {"trainable/query_2",
       {"x_2 @ W_query",
        "The query of {xq}: q({query}) = x({query}) W_q. A ({d_in},) vector times a "
        "({d_in}, {d_out}) matrix gives ({d_out},)."}},
      {"trainable/key_2",
       {"x_2 @ W_key", "Its key k({query}) = x({query}) W_k, shape ({d_out},)."}},
      {"trainable/value_2",
       {"x_2 @ W_value", "Its value v({query}) = x({query}) W_v, shape ({d_out},)."}},
      {"trainable/keys",
       {"inputs @ W_key: a key for every token",
        "The query is compared with every token, so every token needs a key: ({T}, {d_in}) "
        "@ ({d_in}, {d_out}) gives ({T}, {d_out}), one key per row."}},
      {"trainable/values",
       {"inputs @ W_value: a value for every token",
        "Likewise one value per token, shape ({T}, {d_out})."}},
      {"trainable/attn_score_22",
       {"query_2 · keys[{q}]: the score of {xq} for itself",
        "One unnormalised attention score, ω{query}{query} = q({query}) · k({query}). The query "
        "is now compared with projected keys, not with the raw embeddings of section 3.3."}},
      {"trainable/attn_scores_2",
       {"query_2 @ keys.T: scores against every key",
        "ω{query}i = q({query}) · k(i) for all i at once: ({d_out},) @ ({d_out}, {T}) gives "
        "({T},)."}},
      {"trainable/attn_weights_2",
       {"softmax(attn_scores_2 / sqrt(d_k)), d_k = {d_k}",
        "Scaled dot-product attention: α{query}i = softmax(ω{query}i / sqrt(d_k)), where "
        "d_k = {d_k} is the width of the keys. Dividing by sqrt(d_k) = {sqrt_d_k} keeps the "
        "scores from growing with d_k, so the softmax does not saturate into a nearly one-hot "
        "vector with tiny gradients."}},
      {"trainable/context_vec_2",
       {"attn_weights_2 @ values",
        "z({query}) = Σ α{query}i v(i): the weighted sum now runs over the values, not the "
        "inputs. ({T},) @ ({T}, {d_out}) gives ({d_out},): the context vector is d_out = "
        "{d_out} wide."}},
  };
}

// 3.4.2: SelfAttention_v1 and v2 as classes; exercise 3.1.
std::map<std::string, StepText> class_texts_en() {
  return {
      {"trainable/sa_v1_output",
       {"SelfAttention_v1({d_in}, {d_out})(inputs), seed {seed1}: row {query} is context_vec_2",
        "SelfAttention_v1 packs the steps above into an nn.Module and runs them for all tokens "
        "at once: softmax(Q Kᵀ / sqrt(d_k)) V with Q = inputs @ W_query, K and V likewise. Same "
        "seed, same weights: row {query} of the ({T}, {d_out}) output is context_vec_2."}},
      {"trainable/sa_v2.W_query.weight",
       {"SelfAttention_v2 (seed {seed2}): nn.Linear W_query.weight, stored as (d_out, d_in)",
        "SelfAttention_v2 uses nn.Linear layers instead of bare parameters: a better "
        "initialisation (uniform within ±1/sqrt(d_in)) and an optional bias. nn.Linear stores "
        "its weight transposed, shape ({d_out}, {d_in}), and computes x @ weight.T."}},
      {"trainable/sa_v2.W_query.bias",
       {"SelfAttention_v2 (seed {seed2}): nn.Linear W_query.bias",
        "With qkv_bias=True every nn.Linear also adds a bias: queries = x @ weight.T + bias. "
        "Shape ({d_out},), drawn right after its weight."}},
      {"trainable/sa_v2.W_key.weight",
       {"SelfAttention_v2 (seed {seed2}): nn.Linear W_key.weight, stored as (d_out, d_in)",
        "The key projection, drawn after W_query from the same generator, shape "
        "({d_out}, {d_in})."}},
      {"trainable/sa_v2.W_key.bias",
       {"SelfAttention_v2 (seed {seed2}): nn.Linear W_key.bias",
        "The keys' bias, shape ({d_out},)."}},
      {"trainable/sa_v2.W_value.weight",
       {"SelfAttention_v2 (seed {seed2}): nn.Linear W_value.weight, stored as (d_out, d_in)",
        "The value projection, shape ({d_out}, {d_in})."}},
      {"trainable/sa_v2.W_value.bias",
       {"SelfAttention_v2 (seed {seed2}): nn.Linear W_value.bias",
        "The values' bias, shape ({d_out},)."}},
      {"trainable/sa_v2_output",
       {"SelfAttention_v2({d_in}, {d_out}{bias_arg})(inputs)",
        "The same computation as SelfAttention_v1, shape ({T}, {d_out}), but different "
        "numbers: the weights come from another seed ({seed2}) and another initialisation. "
        "Exercise 3.1 below shows the two classes agree once they share weights."}},
      {"trainable/exercise_3_1_sa_v1_output",
       {"Exercise 3.1: SelfAttention_v1 with v2's weights (W_*.weight.T copied in)",
        "Exercise 3.1: build both classes after torch.manual_seed({seed1}), then set "
        "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T), and W_key and W_value "
        "likewise. The .T is needed because nn.Linear stores (d_out, d_in) while v1 multiplies "
        "by a (d_in, d_out) matrix."}},
      {"trainable/exercise_3_1_sa_v2_output",
       {"Exercise 3.1: SelfAttention_v2({d_in}, {d_out})(inputs), seed {seed1}",
        "The answer: SelfAttention_v2 gives exactly the output of v1 above. Both compute "
        "inputs @ W, once with a Parameter and once inside nn.Linear; the two classes differ "
        "only in how they store and initialise their weights."}},
  };
}

}  // namespace

LangTable trainable_en() {
  LangTable t;
  t.code = "en";
  t.steps = step_by_step_texts_en();
  t.steps.merge(class_texts_en());
  t.ui = {
      {"stage.trainable",
       "W_query, W_key, W_value; scaled dot-product; SelfAttention_v1 and v2; exercise 3.1"},
  };
  return t;
}

}  // namespace attn
