// run_decompositions against PyTorch 2.14's ep.run_decompositions() of the real-program corpus
// (tests/fixtures/decomposed, written by tools/oracle/scripts/gen_decomposed.py), the op-list
// parsing of --only/--keep, and the CLI. Every program we decompose must run to the same values
// as its original (allclose 1e-4); the programs listed in kPrintsEqual must print exactly as
// PyTorch prints its decomposition (the list only grows: a newly equal program is reported).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "fakeexport/core/error.h"
#include "fakeexport/export/decompose.h"
#include "fakeexport/export/run.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/sample_inputs.h"
#include "test_util.h"

using namespace fe;
namespace fs = std::filesystem;

namespace {

/// The committed corpus and PyTorch's decompositions of it, or FE_CORPUS_DIR and FE_DECOMPOSED_DIR:
/// a probe generated with gen_corpus.py --out DIR and gen_decomposed.py --corpus DIR --out DIR2.
const std::string kCorpus = std::getenv("FE_CORPUS_DIR") ? std::getenv("FE_CORPUS_DIR")
                                                          : std::string(FE_FIXTURES_DIR) + "/corpus";
const std::string kDecomposed = std::getenv("FE_DECOMPOSED_DIR") ? std::getenv("FE_DECOMPOSED_DIR")
                                                                  : std::string(FE_FIXTURES_DIR) + "/decomposed";

/// PyTorch names inlined subgraph code `<eval_with_key>.N`, N counting the GraphModules its process
/// compiled before: not a property of the program.
std::string normalized(std::string s) {
  const std::string key = "<eval_with_key>.";
  for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + key.size())) {
    size_t e = p + key.size();
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
    s.replace(p + key.size(), e - p - key.size(), "N");
  }
  return s;
}

/// gen_decomposed.py's ONLY list (the NAME.only.txt fixtures).
constexpr const char* kOnly = "aten.linear,aten.t,aten.transpose.int,aten.layer_norm,aten.silu";

/// Programs whose decomposition prints exactly as PyTorch's, with the default table and with
/// get_decompositions(kOnly).
const std::set<std::string> kPrintsEqual = {
    "exportdb_assume_constant_result", "exportdb_constrain_as_value_example", "exportdb_autograd_function",
    "exportdb_class_method", "exportdb_cond_branch_class_method",
    "exportdb_cond_branch_nested_function", "exportdb_cond_branch_nonlocal_variables",
    "exportdb_cond_closed_over_variable", "exportdb_cond_predicate", "exportdb_decorator", "exportdb_dictionary",
    "exportdb_dynamic_shape_assert", "exportdb_dynamic_shape_constructor", "exportdb_dynamic_shape_if_guard",
    "exportdb_dynamic_shape_map", "exportdb_dynamic_shape_slicing", "exportdb_dynamic_shape_view",
    "exportdb_fn_with_kwargs", "exportdb_list_contains", "exportdb_list_unpack", "exportdb_model_attr_mutation",
    "exportdb_nested_function", "exportdb_null_context_manager", "exportdb_optional_input",
    "exportdb_pytree_flatten", "exportdb_scalar_output", "exportdb_specialized_attribute",
    "exportdb_static_for_loop", "exportdb_static_if", "exportdb_tensor_setattr", "exportdb_type_reflection_method",
    "exportdb_unsupported_operator", "exportdb_user_input_mutation", "hf_albert", "hf_bart", "hf_beit", "hf_bert",
    "hf_blenderbot", "hf_bloom", "hf_clip", "hf_clip_vision", "hf_codegen", "hf_cohere", "hf_convnext",
    "hf_convnextv2", "hf_deberta_v2", "hf_deepseek_v3", "hf_deit", "hf_falcon", "hf_dinov2", "hf_distilbert", "hf_electra",
    "hf_gemma", "hf_gemma2", "hf_gemma3_text", "hf_gpt_bigcode", "hf_gpt_neox", "hf_gpt_oss", "hf_gptj",
    "hf_granite", "hf_hubert", "hf_llama", "hf_marian", "hf_mbart", "hf_mistral", "hf_mixtral", "hf_mpnet",
    "hf_mpt", "hf_olmo", "hf_olmo2", "hf_olmoe", "hf_opt", "hf_pegasus", "hf_phi", "hf_phi3", "hf_qwen2",
    "hf_qwen2_moe", "hf_qwen3", "hf_qwen3_moe", "hf_resnet", "hf_roberta", "hf_siglip", "hf_stablelm",
    "hf_starcoder2", "hf_swin", "hf_t5", "hf_vit", "hf_wav2vec2", "hf_whisper", "hf_xlm_roberta", "hop_effects", "hop_scan",
    "hop_while_loop", "lowered_attention_cpu", "mutation_base_then_views", "mutation_buffer_split_input",
    "mutation_input_view", "mutation_setitem_views", "mutation_sibling_views", "mutation_view_of_view",
    // corpus_ops.py: operators the default table lowers that the HF programs seldom reach.
    "ops_einsum", "ops_elementwise", "ops_factories", "ops_index_add", "ops_one_hot", "ops_products", "ops_ranges",
    "ops_reductions", "ops_reductions_dynamic", "ops_shapes", "ops_unlowered", "ops_unlowered_dynamic", "ops_einsum_dynamic",
    "lowered_attention_cpu_dynamic", "hf_bert_dyn", "hf_vit_dyn", "seed002_encoder",
    // Dynamic programs whose dead size arithmetic is modelled (functional_names.h: each wrapped
    // output's storage size; guards_fn_trace.h: the input guards ep.module() checks;
    // contiguity_trace.h: empty_like's ordering of its input's dims by stride, c10's contiguity as
    // reshape, linear and rms_norm's .contiguous() ask it).
    "ops_one_hot_dynamic", "ops_products_dynamic", "ops_ranges_dynamic", "hf_resnet_dyn", "ops_factories_dynamic",
    "ops_shapes_dynamic",
    // ... and of higher-order ops (inputs wrapped inside their subgraphs, results wrapped outside),
    // zeros' shape validation (`u0 >= 0` before full).
    "exportdb_cond_operands", "exportdb_constrain_as_size_example", "hop_scan_dynamic", "hop_while_loop_dynamic",
    // ... a stride a computeStorageNbytes `stride * 1` returns to its sum, a view's -1 inferred
    // (infer_size's `%`, `//`), a contiguity expression's `or_` over an equality sympy decides.
    "hf_llama_dyn", "hf_qwen2_dyn", "hf_wav2vec2_dyn",
    // ... torch._refs run on an in-place op's meta copies (refs_trace.h: clamp_, index_add_'s
    // `tensor * alpha`), every list's tensor's to_meta.
    "hf_mixtral_dyn", "ops_index_add_dynamic",
    // ... and masked_fill_.Tensor's with a 0-dim value (where expands it), leaky_relu_, hardtanh_,
    // elu_ and silu_'s (torch._decomp's inplace_op or the reference's in-place wrapper), each
    // tensor's c10 numel computed once.
    "ops_elementwise_dynamic", "ops_inplace_acts", "ops_inplace_acts_dynamic",
    // ... copy_'s meta (the overlap check of a non-contiguous view: c10's non-overlapping-and-dense
    // sort, the zero-stride test) and the wrap of an in-place op's returned self after its write-back.
    "mutation_setitem_views_dynamic",
    // ... a view's symbolic storage offset: its wrap reads it (`sym_storage_offset`) and the aliasing
    // fix-up's set_ checks it (`ge`). The expert counts' sum asserted Eq(u0 + u1 + u2 + u3, 32):
    // the runtime-assert pass makes its chain again (decompose.cpp remake_chain).
    "hf_granitemoe", "mutation_views_3d_dynamic",
    // ... a slice replayed between two writes (a cache hit: new sizes, read at the next write's
    // to_meta, whose copy has offset 0), and read where first needed when its sync made it.
    "mutation_slices_dynamic",
    // ... those in-place activations on dense non-contiguous tensors (the output permutation the
    // stride sort finds orders empty_permuted's physical sizes).
    "ops_inplace_acts_strided_dynamic",
    // ... masked_fill on a non-contiguous self (its reference's `r.contiguous()` is a clone; c10's
    // check is asked of where's result, before it).
    "ops_masked_fill_strided_dynamic",
    // ... and on masks of another layout than self's (where's result follows the mask's).
    "ops_masked_fill_layouts_dynamic",
    // ... and on masks that broadcast (a size-1 dim, fewer dims: where expands them).
    "ops_masked_fill_broadcast_dynamic",
    // ... and unary in-place ops whose meta is their reference's in-place wrapper (sigmoid_, tanh_,
    // exp_, log_, rsqrt_, ...), contiguous and transposed.
    "ops_inplace_unary_dynamic",
    // ... and in-place binary ops functionalized to the op of their signature (pow_.Scalar to
    // pow.Tensor_Scalar, floor_divide_ to floor_divide), addcmul_, triu_/tril_; on dynamic shapes
    // floor_divide_'s meta is the float floor division's reference on the meta copies (its twenty
    // references, some 2,200 dead nodes).
    "ops_inplace_binary", "ops_inplace_binary_dynamic",
    // ... pow_ (`a * a` for 2, prims.pow, a tensor exponent) and addcmul_ on dynamic shapes: their
    // metas' checks on the meta copies (floor_divide_'s is not recorded yet).
    "ops_inplace_pow_dynamic",
    // ... triu_/tril_ with symbolic rows, columns or both (their reference's mask on the meta copy).
    "ops_inplace_triu_dynamic",
    // ... floor_divide_ of float tensors: 3-D, a square of symbolic sides, 2-D rows.
    "ops_inplace_floor_divide_dynamic",
    // ... _to_copy (dtype conversions) of views that are not dense: slices, transposed slices.
    "ops_to_copy_views_dynamic",
    // ... and some thirty ops on transposed and sliced views (their outputs' strides as the refs'
    // stride sort gives them: zeros_like, hardtanh, index_put).
    "ops_views_dynamic", "ops_views2_dynamic", "ops_flip_scans", "ops_flip_scans_dynamic", "ops_more", "ops_more_dynamic",
    "ops_mask_index", "ops_mask_index_dynamic",
    // ... in-place writes into einsum results, back through the view chain einsum made out of its bmm.
    "ops_einsum_inplace", "ops_einsum_inplace_dynamic",
    // ... F.unfold (im2col: aranges of block starts and kernel offsets, constant_pad_nd, an index,
    // permute, reshape; the checks' size arithmetic).
    "ops_unfold",
    // ... arange between item()s of float tensors (unbacked floats zuf0; CeilToInt(FloatTrueDiv(...))).
    "ops_float_item_arange",
    // ... masked_scatter (kept whole: not in the default table) and masked_scatter_, with an
    // expand_as mask (expand_as decomposes to expand of the other's sizes).
    "ops_masked_scatter",
    "ops_masked_scatter_dynamic",
    // ... copy_ from broadcasting sources (refs.expand's checks per source dim; a static-size source
    // with a symbolic stride has its storage size computed by to_meta).
    "mutation_copy_broadcast_dynamic",
    // ... copy_ from a source of another dtype (meta_copy_'s `src.to(self)`: convert_element_type's
    // _is_non_overlapping_and_dense_or_false, its sort of (size, stride) pairs as CPython sorts).
    "mutation_copy_dtype_dynamic",
    "mutation_copy_dtype_layouts_dynamic",
    // ... scatter_ (its meta's index numel and shape checks on the meta copies).
    "mutation_scatter_dynamic",
    // ... index_copy_ and index_copy (_index_copy's slice-shape sym_eq, its `.contiguous()`).
    "mutation_index_copy_dynamic",
    // More kinds of models (corpus_hf.py, probe 1): state-space and recurrent decoders, hybrid and
    // linear attention, encoder-decoders, encoders, vision and audio models.
    "hf_mamba", "hf_mamba2", "hf_recurrent_gemma", "hf_cohere2", "hf_exaone4", "hf_arcee", "hf_ernie4_5",
    "hf_seed_oss", "hf_apertus", "hf_bitnet", "hf_lfm2", "hf_qwen3_next", "hf_mt5", "hf_umt5", "hf_longt5",
    "hf_plbart", "hf_xlnet", "hf_layoutlm", "hf_canine", "hf_esm", "hf_megatron_bert", "hf_ernie",
    "hf_data2vec_text", "hf_bigbird", "hf_pvt_v2", "hf_mobilevit", "hf_poolformer", "hf_focalnet", "hf_dpt",
    "hf_sew", "hf_wav2vec2_conformer", "hf_unispeech_sat",
    // Dynamic batch and sequence (Dim.AUTO) of some of them (hf_mt5_dyn too, but for its
    // get_decompositions(ONLY) print, whose `add` names run 5 behind PyTorch's).
    "hf_esm_dyn", "hf_dpt_dyn", "hf_canine_dyn", "hf_lfm2_dyn", "hf_bigbird_dyn", "hf_pvt_v2_dyn",
};

/// Dynamic programs that print as PyTorch's decomposition up to node names: PyTorch numbers
/// nodes after the size arithmetic its trace records and then drops. Modelled: the storage size of
/// every output FunctionalTensorMode wraps (a CompositeImplicit op's inner ops one by one), the
/// `_guards_fn` checks, a mutation's per-argument checks and the contiguity check of refs ending
/// in `.contiguous()`, c10's numel and contiguity as reshape/linear ask them, empty_like's and
/// einsum's checks, the sizes and strides an output's wrap reads (sym_size/sym_stride), matmul's
/// Python decomposition, _unsafe_view's and reshape's C++ shape inference, scaled_dot_product_
/// attention's cpu choice and its flash decomposition beneath the level. Not modelled: FakeTensor's
/// dispatch cache (a hit's output has its contiguity computed already).
const std::set<std::string> kEqualUpToNames = {
    "hf_clip_dyn", "hf_whisper_dyn",
    // Sizes read from data (unbacked u0): PyTorch's retrace also records, and drops, the storage-size
    // arithmetic of each tensor holding one (sym_size, eq, sub, add, mul), so even the static
    // program's later names run ahead.
    "ops_repeat_interleave", "ops_repeat_interleave_dynamic",
    // A reshape needing a copy inside a Python decomposition (im2col's, symbolic batch): c10's checks
    // beneath the functionalization level take one `mul` name fewer than ours.
    "ops_unfold_dynamic",
    // An arange over a symbolic size with a float step (CeilToInt(FloatTrueDiv(ToFloat(s27), 1.0))):
    // PyTorch's retrace takes two `sym_size_int` names more than ours before it.
    "ops_float_item_arange_dynamic",
    // Views over an arange's length read from floats (Funnel's relative shift): PyTorch's retrace
    // takes one `mul` name more (the static program) and two `sym_size_int` names (the dynamic one).
    "ops_unbacked_views", "ops_unbacked_views_dynamic",
    // ... and Funnel itself: its retrace takes two `sym_size_int` names and one `mul` name more.
    "hf_funnel",
    // Dim.AUTO exports: the name counters run apart where c10 computes a clone's contiguous strides
    // (Cohere2's rotary repeat_interleave: `sym_max`, `mul`s and `eq`s we do not record), in
    // RecurrentGemma's and XLNet's size arithmetic (two `mul`, one `sym_size_int`), and SEW's
    // convolutions (69 `floordiv` names fewer). Mamba's (vmap) differ further.
    "hf_cohere2_dyn", "hf_recurrent_gemma_dyn", "hf_xlnet_dyn", "hf_sew_dyn",
};
// Not in the list: hf_mixtral_dyn has PyTorch's nodes in PyTorch's order since that change (the
// count of routed tokens computed before `sort`), but its print names that product `mul`,
// PyTorch's `mul_559`, and renaming nodes in order also renames the word `mul` in a comment's
// code text (`code: mul = torch.ops.aten.mul.Tensor(...)`, a node of the exported program).

/// Operators of the registry that torch.export.default_decompositions() lowers and `decompose` keeps.
const std::set<std::string> kNotLoweredYet = {
    // Size and stride queries, not graph operators the retrace lowers.
    "aten::sym_size.int",
    "aten::sym_stride.int",
};

/// Lowered ops whose decomposition opens a DisableDynamoScope (ops/annotation.h), with its name.
const std::map<std::string, std::string> kAnnotatedDecompositions = {{"aten::addcmul.default", "addcmul"},
                                                                   {"aten::dot.default", "dot"},
                                                                   {"aten::glu.default", "glu"},
                                                                   {"aten::logsumexp.default", "logsumexp"},
                                                                   {"aten::softplus.default", "softplus"}};

/// Programs the retrace does not cover yet (the list only shrinks; falcon's vmap-based mask left it).
const std::set<std::string> kNotRetracedYet = {};

/// max |a - b| beyond allclose(atol=rtol=1e-4); 0 when close.
double worst_diff(const Tensor& got, const Tensor& want) {
  const Tensor a = got.to(DType::Float64).contiguous(), b = want.to(DType::Float64).contiguous();
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.data<double>()[i], y = b.data<double>()[i];
    if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
    const double d = std::abs(x - y);
    if (!(d <= 1e-4 + 1e-4 * std::abs(y))) worst = std::max(worst, std::isnan(d) ? INFINITY : d);
  }
  return worst;
}

}  // namespace

TEST(Decompose, CorpusPrintsAsPyTorchAndKeepsValues) {
  if (!fs::is_directory(kDecomposed)) GTEST_SKIP() << "no decomposed fixtures at " << kDecomposed;
  const DecompTable table = default_decompositions();
  const DecompTable only_table = get_decompositions(split_op_list(kOnly));
  int programs = 0, decomposed = 0, equal = 0, only_equal = 0, equal_up_to_names = 0, ran = 0;
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    if (e.path().extension() != ".pt2") continue;
    const std::string name = e.path().stem().string();
    const std::string fixture = kDecomposed + "/" + name + ".txt";
    if (!fs::exists(fixture)) continue;  // PyTorch's own run_decompositions failed (MANIFEST.json)
    SCOPED_TRACE(name);
    ++programs;
    serde::LoadedProgram lp = serde::load(e.path().string(), {.materialize_weights = true});
    ExportedProgram d;
    try {
      d = run_decompositions(lp.ep, table);
    } catch (const Error& err) {  // a construct the retrace does not cover yet (listed in the notes)
      std::cout << "[ decompose ] " << name << ": not decomposed yet: " << err.what() << "\n";
      EXPECT_TRUE(kNotRetracedYet.count(name)) << err.what();
      continue;
    }
    ++decomposed;
    // check_our_pt2.py has PyTorch load what we write and compare it with its own decomposition.
    if (lp.weights_present) {
      fs::create_directories(std::string(FE_BUILD_DIR) + "/pt2_out/decomposed");
      serde::save(d, std::string(FE_BUILD_DIR) + "/pt2_out/decomposed/" + name + ".pt2",
                  {.torch_version = lp.torch_version});
    }
    const bool same = normalized(to_string(d, {.read_source = false})) == normalized(fe_test::read_file(fixture));
    equal += same;
    if (kPrintsEqual.count(name)) {
      EXPECT_TRUE(same) << "no longer prints as PyTorch's run_decompositions()";
    } else if (same) {
      std::cout << "[ decompose ] " << name << ": prints equal now: add it to kPrintsEqual\n";
    }
    if (!same) {
      const bool up_to_names = fe_test::canonical_names(normalized(to_string(d, {.read_source = false}))) ==
                               fe_test::canonical_names(normalized(fe_test::read_file(fixture)));
      equal_up_to_names += up_to_names;
      if (kEqualUpToNames.count(name)) {
        EXPECT_TRUE(up_to_names) << "no longer prints as PyTorch's up to node names";
      }
    }
    // The same program under get_decompositions(kOnly) (gen_decomposed.py's ONLY list): CIA ops
    // outside the list kept whole unless export cannot preserve them.
    const std::string only_fixture = kDecomposed + "/" + name + ".only.txt";
    if (fs::exists(only_fixture)) {
      const bool only_same =
          normalized(to_string(run_decompositions(lp.ep, only_table), {.read_source = false})) ==
          normalized(fe_test::read_file(only_fixture));
      only_equal += only_same;
      if (kPrintsEqual.count(name)) {
        EXPECT_TRUE(only_same) << "no longer prints as PyTorch's run_decompositions(get_decompositions(ONLY))";
      }
    }

    // Values: the decomposed program computes what the original computes.
    if (!lp.weights_present) continue;
    // Fresh inputs per run: a program may mutate its inputs (USER_INPUT_MUTATION).
    auto inputs = [&] {
      std::vector<Tensor> in;
      for (auto& [k, v] : serde::read_sample_inputs(e.path().string(), lp.ep)) in.push_back(v);
      return in;
    };
    std::vector<Tensor> want, got;
    std::vector<Tensor> want_in = inputs(), got_in = inputs();
    // Buffers a program writes to (BUFFER_MUTATION): each run starts from the same state.
    for (auto& [k, v] : d.state_dict)
      if (v.defined()) v = v.clone();
    try {
      want = run(lp.ep, want_in);
    } catch (const Error&) {
      continue;  // the original itself does not run here (data-dependent programs)
    }
    got = run(d, got_in);
    // Inputs the program writes to: the original mutates them in place, the decomposed program
    // returns their new values (USER_INPUT_MUTATION), which run() copies back.
    for (size_t k = 0; k < got_in.size(); ++k)
      if (got_in[k].defined() && got_in[k].dtype() == want_in[k].dtype()) {
        EXPECT_EQ(worst_diff(got_in[k], want_in[k]), 0) << "input " << k << " after the run";
      }
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      if (!want[k].defined()) continue;
      EXPECT_EQ(fe_test::ints(got[k].sizes()), fe_test::ints(want[k].sizes())) << "output " << k;
      EXPECT_EQ(got[k].dtype(), want[k].dtype()) << "output " << k;
      if (got[k].dtype() == want[k].dtype() && fe_test::ints(got[k].sizes()) == fe_test::ints(want[k].sizes())) {
        EXPECT_EQ(worst_diff(got[k], want[k]), 0) << "output " << k;
      }
    }
    ++ran;
  }
  std::cout << "[ decompose ] " << programs << " programs PyTorch decomposes: " << decomposed << " retraced, " << equal
            << " print equal (" << only_equal << " with get_decompositions(" << kOnly << ")), "
            << equal_up_to_names << " more up to node names, " << ran << " ran to the original's values\n";
  EXPECT_GE(programs, 100);
  EXPECT_GE(equal, static_cast<int>(kPrintsEqual.size()));
  EXPECT_GE(only_equal, static_cast<int>(kPrintsEqual.size()));
  EXPECT_GE(equal_up_to_names, static_cast<int>(kEqualUpToNames.size()));
}

// Every registry op PyTorch's default table lowers has a decomposition, or is an in-place op whose
// functional form the retrace's functionalization records instead (that form lowered or core), or
// is listed in kNotLoweredYet with why; every op with a decomposition outside the table is a
// CompositeImplicit op export cannot preserve (lowered whatever the table). The table:
// tests/fixtures/default_decompositions.txt (gen_decomposed.py --table).
TEST(Decompose, DefaultTableIsPyTorchs) {
  std::set<std::string> table;
  std::map<std::string, std::string> disabled;  // op -> its torch._disable_dynamo function's name
  std::istringstream in(fe_test::read_file(std::string(FE_FIXTURES_DIR) + "/default_decompositions.txt"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    table.insert(line.substr(0, sp));
    if (sp != std::string::npos) disabled[line.substr(0, sp)] = line.substr(sp + 1);
  }
  ASSERT_GT(table.size(), 900u);
  const DecompTable ours = default_decompositions();
  const DecompTable preserved_cia = get_decompositions({});
  int lowered = 0;
  for (const OpDef* op : registry().all()) {
    const std::string q = op->qualified;
    if (table.count(q)) {
      const OpDef* functional = op->inplace ? functional_variant(*op) : nullptr;
      if (ours.count(op)) {
        ++lowered;
        EXPECT_FALSE(kNotLoweredYet.count(q)) << q << " is lowered now: take it off kNotLoweredYet";
        // PyTorch's decomposition runs in a dynamo-disabled function, which annotates its nodes:
        // ours must open a DisableDynamoScope of that name (ops/annotation.h), and be listed.
        const auto d = disabled.find(q);
        const auto k = kAnnotatedDecompositions.find(q);
        EXPECT_EQ(d == disabled.end() ? "" : d->second, k == kAnnotatedDecompositions.end() ? "" : k->second) << q;
      } else if (functional) {
        EXPECT_TRUE(ours.count(functional) || !table.count(functional->qualified))
            << q << ": its functional form " << functional->qualified << " is in PyTorch's table but not lowered";
      } else {
        EXPECT_TRUE(kNotLoweredYet.count(q)) << q << " is in PyTorch's default table but has no decomposition";
      }
    } else if (ours.count(op)) {
      EXPECT_TRUE(preserved_cia.count(op)) << q << " is lowered by default but not in PyTorch's default table";
    }
  }
  std::cout << "[ decompose ] " << lowered << " registry ops lowered by PyTorch's default table, " << kNotLoweredYet.size()
            << " not yet\n";
}

TEST(Decompose, OpListsNameOpsOrFailTyped) {
  const DecompTable all = default_decompositions();
  const DecompTable lin = decompositions_of(split_op_list("aten.linear,aten::t"));
  EXPECT_EQ(lin.size(), 2u);
  EXPECT_TRUE(lin.count(registry().find("aten::linear")));
  EXPECT_TRUE(lin.count(registry().find("aten::t")));
  for (const OpDef* op : lin) EXPECT_TRUE(all.count(op));
  // A packet names every overload that has a decomposition; an overload names one.
  EXPECT_EQ(decompositions_of({"aten.transpose.int"}).size(), 1u);
  EXPECT_THROW(decompositions_of({"aten.no_such_op"}), UnknownOpError);
  EXPECT_THROW(decompositions_of({"linear"}), ValueError);
  EXPECT_THROW(decompositions_of({"aten.mm"}), ValueError);  // Core ATen: nothing to lower it to
  // Core ATen ops never decompose by default.
  EXPECT_FALSE(all.count(registry().find("aten::mm")));
  EXPECT_FALSE(all.count(registry().find("aten::permute")));
}

TEST(Decompose, KeepLeavesAnOpAndOnlyLowersJustThose) {
  const std::string pt2 = std::string(FE_FIXTURES_DIR) + "/corpus/exportdb_class_method.pt2";
  if (!fs::exists(pt2)) GTEST_SKIP() << "no corpus";
  const serde::LoadedProgram lp = serde::load(pt2);
  DecompTable keep = default_decompositions();
  keep.erase(registry().find("aten::linear"));
  const std::string kept = to_string(run_decompositions(lp.ep, keep), {.read_source = false});
  EXPECT_NE(kept.find("torch.ops.aten.linear.default"), std::string::npos);
  // Only `t`: linear is not in the table, so it stays whole (nothing calls t outside it).
  const std::string only = to_string(run_decompositions(lp.ep, decompositions_of({"aten.t"})), {.read_source = false});
  EXPECT_EQ(only, to_string(lp.ep, {.read_source = false}));
  // get_decompositions([...]) holds only ops PyTorch decomposes in Python: not linear (CompositeImplicit).
  const DecompTable py = get_decompositions({"aten.linear", "aten.t", "aten.transpose.int", "aten.layer_norm", "aten.silu"});
  EXPECT_FALSE(py.count(registry().find("aten::linear")));
  EXPECT_FALSE(py.count(registry().find("aten::layer_norm")));
  EXPECT_TRUE(py.count(registry().find("aten::t")));
  EXPECT_TRUE(py.count(registry().find("aten::silu")));
  // As PyTorch prints ep.run_decompositions(get_decompositions([...])) of the same program.
  EXPECT_EQ(to_string(run_decompositions(lp.ep, py), {.read_source = false}),
            fe_test::read_file(std::string(FE_FIXTURES_DIR) + "/decomposed/exportdb_class_method.only.txt"));
}

TEST(DecomposeCli, PrintsJsonAndRejectsUnknownOps) {
  const std::string pt2 = std::string(FE_FIXTURES_DIR) + "/corpus/exportdb_static_if.pt2";
  if (!fs::exists(pt2)) GTEST_SKIP() << "no corpus";
  auto r = fe_test::run_cli("decompose " + pt2 + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["decomposed"], 1);  // ones -> full
  EXPECT_TRUE(j["ops"].contains("aten.full.default"));
  EXPECT_FALSE(j["ops"].contains("aten.ones.default"));
  r = fe_test::run_cli("decompose " + pt2 + " --print");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(normalized(r.out), normalized(fe_test::read_file(std::string(FE_FIXTURES_DIR) + "/decomposed/exportdb_static_if.txt")));
  r = fe_test::run_cli("decompose " + pt2 + " --only aten.nope");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("unknown operator 'aten.nope'"), std::string::npos) << r.out;
  r = fe_test::run_cli("decompose " + pt2 + " --only aten.t --keep aten.t");
  EXPECT_EQ(r.rc, 2) << r.out;
}
