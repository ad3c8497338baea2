// From a request to walks: the input loaded once, the Config made whole, the stages run,
// localized and trimmed to --only.
#include "request/request.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "input/size_limits.h"
#include "lang/lang.h"
#include "lang/weights_errors.h"
#include "request/option_table.h"
#include "stages/stages.h"
#include "stages/tokens.h"
#include "torch/sgemm_order.h"
#include "torch/torch_random.h"
#include "weights/gpt_weights.h"

namespace attn {

namespace {

Embeddings random_embeddings(int64_t T, int64_t D, uint64_t seed) {
  TorchGenerator gen(seed);
  Embeddings e;
  e.inputs = randn(gen, {T, D});
  for (int64_t i = 0; i < T; ++i) e.tokens.push_back("x" + std::to_string(i + 1));
  return e;
}

std::vector<Walk> run_walks(const WalkRequest& r, const Config& cfg) {
  std::vector<Walk> walks;
  for (const auto& s : all_stages())
    if (stage_selected(s, r.stage)) {
      walks.push_back(s.run(cfg));
      note_nonfinite(walks.back());
      summarize(walks.back());  // text only: keep what print() shows
    }
  if (walks.empty()) throw UsageError(std::string("--stage: no stage belongs to '") + enum_name(r.stage) + "'");
  return walks;
}

void apply_only(std::vector<Walk>& walks, const std::vector<std::string>& only) {
  if (only.empty()) return;
  std::set<std::string> known;
  for (const auto& w : walks)
    for (const auto& s : w.steps) known.insert(s.name);
  for (const auto& name : only)
    if (!known.count(name))
      throw UsageError("--only: no step named '" + name + "' in this walk; the steps are: " +
                       fmt::format("{}", fmt::join(known, ", ")));
  const std::set<std::string> keep(only.begin(), only.end());
  for (auto& w : walks) keep_only(w, keep);
}

// --random-input's and --text's: the first seed (the chapter's 123 unless --seed is given).
uint64_t seed_of(const WalkRequest& r) { return r.seed1; }

// The stages that take --weights: the "weights" row's (gpt, multi-head).
bool takes_weights(StageChoice stage) {
  std::istringstream names(find_option("weights")->stages);
  for (std::string n; names >> n;)
    if (n == enum_name(stage)) return true;
  return false;
}

// --stage gpt, and a stage walked on --weights, read token ids, from --text or chapter 4's
// own "Every effort moves you", and embed them with the model's own tables.
bool walks_gpt(const WalkRequest& r) {
  return r.stage == StageChoice::Gpt || (!r.gpt.weights_path.empty() && takes_weights(r.stage));
}
constexpr const char* kGptText = "Every effort moves you";

// --weights given to stages that walk the chapter's own weights: a usage error, not a note.
void refuse_weights_elsewhere(const WalkRequest& r) {
  if (r.gpt.weights_path.empty() || takes_weights(r.stage)) return;
  throw UsageError(fmt::format("--weights: --stage {} walks the chapter's own weights; only --stage {} take a weights "
                               "file (docs/gpt.md)",
                               enum_name(r.stage), find_option("weights")->stages));
}

// --stage gpt (and multi-head on --weights): the weights file, read once (exit 1 for a file
// that is no GPT-2 model, 2 when its head count cannot be told without --heads).
std::shared_ptr<const GptParams> load_weights(const WalkRequest& r) {
  if (!walks_gpt(r) || r.gpt.weights_path.empty()) return nullptr;
  if (r.gpt.params) return r.gpt.params;  // read before: the page's engine keeps the open file's model
  try {
    const std::optional<int64_t> heads = r.heads_given ? std::optional<int64_t>(r.heads) : std::nullopt;
    return std::make_shared<const GptParams>(load_gpt_weights(r.gpt.weights_path, heads));
  } catch (const WeightsError& e) {
    Lang lang = Lang::En;
    parse_lang(r.lang, &lang);  // the reader's message in the walk's language
    const std::string message = weights_error_text(lang, e.id, e.vars, e.what());
    if (e.usage) throw UsageError(message);
    throw InputError(message);
  }
}

}  // namespace

void set_document(Options& o) {
  o.walk.document = o.format;
  o.walk.keep_all_values = o.format != Format::Text || o.walk.heatmap;
  o.walk.list_steps = o.list_steps;
  // HTML always carries the explanations; text and JSON only with --explain.
  o.walk.explain = o.walk.explain || o.format == Format::Html;
}

// "1024x768" -> {1024, 768}
std::pair<int64_t, int64_t> parse_size(const std::string& s) {
  const auto x = s.find('x');
  try {
    if (x == std::string::npos) throw std::invalid_argument("no x");
    size_t used1 = 0, used2 = 0;
    const long long t = std::stoll(s.substr(0, x), &used1);
    const long long d = std::stoll(s.substr(x + 1), &used2);
    if (used1 != x || used2 != s.size() - x - 1 || t < 1 || d < 1 || t > (1 << 20) || d > (1 << 20))
      throw std::invalid_argument("range");
    return {t, d};
  } catch (const std::exception&) {
    throw UsageError("--random-input: expected TxD with positive sizes, e.g. 1024x768, got '" + s + "'");
  }
}

// The walks of --stage `s` whose attention matrices size_limits.h costs: `all` runs the
// chapter's; the other stages' matrices are few or small. Every stage is named, with no
// default: a new stage that is not is an error here (-Wswitch, made an error for this function),
// so that it cannot go uncosted by omission.
namespace {
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
std::vector<CostedWalk> costed_walks(StageChoice s) {
  using C = CostedWalk;
  switch (s) {
    case StageChoice::DotProduct: return {C::DotProduct};
    case StageChoice::Softmax: return {C::Softmax};
    case StageChoice::Trainable: return {C::Trainable};
    case StageChoice::Causal: return {C::Causal};
    case StageChoice::Dropout: return {C::Dropout};
    case StageChoice::MultiHead: return {C::MultiHead};
    case StageChoice::All: return {C::DotProduct, C::Softmax, C::Trainable, C::Causal, C::Dropout, C::MultiHead};
    // Vectors only (the size check counts them): no (T, T) matrices, or a few small ones.
    case StageChoice::Tokens: return {};
    case StageChoice::Efficient: return {};
    case StageChoice::KvCache: return {};
    case StageChoice::Gqa: return {};
    case StageChoice::Swa: return {};
    case StageChoice::Rope: return {};
    case StageChoice::Flash: return {};
    case StageChoice::Mla: return {};
    case StageChoice::Bonus: return {};
    case StageChoice::Backward: return {};
    case StageChoice::Gpt: return {};
  }
  return {};  // not reached: every stage is named above
}
#pragma GCC diagnostic pop
}  // namespace

// Refuses, before anything is allocated, a walk whose tensors cannot fit in memory (exit 1:
// the options are well formed, the machine is too small for them, as with a huge input).
void check_walk_fits(const WalkRequest& r, int64_t T, int64_t d_in, const std::string& what) {
  WalkSize w;
  w.name = enum_name(r.stage);
  w.walks = costed_walks(r.stage);
  if (r.document != Format::Text) w.document = enum_name(r.document);
  w.tokens = static_cast<double>(T);
  w.d_in = static_cast<double>(d_in);
  w.d_out = static_cast<double>(r.d_out);
  w.heads = static_cast<double>(r.heads);
  w.batch = static_cast<double>(r.batch);
  check_fits(w, what);
}

// Checks that need the input (the token count) or several options together.
void check_walk_options(const WalkRequest& r, const Config& c) {
  bool chapter = false;  // the bonus stages have no query token
  for (const auto& s : all_stages()) chapter |= stage_selected(s, r.stage) && s.group == StageGroup::Chapter;
  if (chapter && (r.query < 1 || r.query > c.num_tokens()))
    throw UsageError(fmt::format("--query: must be between 1 and {} (the number of tokens), got {}",
                                 c.num_tokens(), r.query));
  for (const auto& s : all_stages())
    if (stage_selected(s, r.stage) && s.misuse)
      if (const std::string why = s.misuse(c); !why.empty()) throw UsageError(why);
}

LoadedInput load_input(const WalkRequest& r) {
  LoadedInput in;
  if (walks_gpt(r) && (!r.input.empty() || !r.random_input.empty() || !r.input_json.empty()))
    throw UsageError(std::string("--stage ") + enum_name(r.stage) + (r.stage == StageChoice::Gpt ? "" : " --weights") +
                     ": the model embeds token ids itself; give --text, not embeddings");
  if (walks_gpt(r) && !r.text.given && r.text.text.empty()) {
    WalkRequest with_text = r;
    with_text.text.text = kGptText;
    with_text.text.given = true;
    return load_input(with_text);
  }
  if ((in.text = load_text(r.text, seed_of(r)))) {
    in.emb = {in.text->pieces, in.text->input_embeddings};
    in.name = text_source(r.text);
    return in;
  }
  if (!r.random_input.empty()) {
    const auto [T, D] = parse_size(r.random_input);
    check_walk_fits(r, T, D, "--random-input " + r.random_input);
    in.emb = random_embeddings(T, D, seed_of(r));
    in.name = "torch.randn(" + r.random_input + ")";
    return in;
  }
  if (!r.input_json.empty()) {
    in.emb = parse_embeddings(r.input_json, "input");
    in.name = "<built-in>";  // the page's table, which starts as the chapter's six tokens
  } else if (!r.input.empty()) {
    in.emb = load_embeddings(r.input, r.max_input_mb * kBytesPerMb);
    in.name = r.input == "-" ? "<stdin>" : r.input;
  } else {
    in.emb = builtin_journey();
    in.name = "<built-in>";
  }
  check_walk_fits(r, in.emb.inputs.size(0), in.emb.inputs.size(1), in.name);
  return in;
}

Config make_config(const WalkRequest& r, LoadedInput in) {
  WalkRequest knobs = r;
  // A one-token text has no x(2): the default query becomes x(1).
  if (in.text && !r.query_given) knobs.query = std::min<int64_t>(r.query, static_cast<int64_t>(in.text->ids.size()));
  Config c;
  c.tokens = std::move(in.emb.tokens);
  c.inputs = std::move(in.emb.inputs);
  c.input_name = std::move(in.name);
  if (in.text) {
    c.text = in.text->text;
    c.token_ids = in.text->ids;
  }
  set_knobs(knobs, c);
  c.gpt.params = load_weights(r);
  c.gpt.all_steps = !r.only.empty() || r.list_steps;
  // Every product of the walk follows this sgemm order (a process-wide choice).
  kernels::BlasKernel kernel = kernels::detected_blas_kernel();
  switch (c.blas_kernel) {
    case BlasKernelChoice::Machine: break;
    case BlasKernelChoice::Cooperlake: kernel = kernels::BlasKernel::Cooperlake; break;
    case BlasKernelChoice::SkylakeX: kernel = kernels::BlasKernel::SkylakeX; break;
    case BlasKernelChoice::Haswell: kernel = kernels::BlasKernel::Haswell; break;
  }
  kernels::set_blas_order({kernel, kernels::detected_blas_threads()});
  c.blas_kernel_used = kernels::blas_kernel_name(kernel);
  c.blas_threads = kernels::blas_order().threads;
  check_walk_options(knobs, c);
  c.summaries_only = !r.keep_all_values;
  return c;
}

std::vector<Walk> make_walks(const WalkRequest& r, RenderOptions* ro) {
  refuse_weights_elsewhere(r);
  LoadedInput in = load_input(r);
  const auto text = in.text;  // chapter 2's steps from the text to its embeddings come first
  const Config cfg = make_config(r, std::move(in));
  std::vector<Walk> walks = run_walks(r, cfg);
  set_render_options(r, *ro);
  for (auto& w : walks) localize(w, ro->lang, r.explain);
  if (text && !walks_gpt(r)) {  // a GPT model embeds the ids with its own tables
    Walk steps = run_text_steps(*text, cfg);
    localize(steps, ro->lang, r.explain);
    prepend_steps(walks.front(), std::move(steps));
  }
  apply_only(walks, r.only);
  for (auto& w : walks) w.config_record = config_record(w.config);  // the JSON's "config"
  return walks;
}

}  // namespace attn
