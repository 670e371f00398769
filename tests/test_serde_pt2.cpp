// PT2 archives written by PyTorch 2.14 (tests/fixtures/pt2/, tools/oracle/scripts/gen_pt2.py): our
// reader loads each, prints exactly what PyTorch prints for torch.export.load, knows whether the
// weights are there, and runs the loaded program to PyTorch's numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "test_util.h"

#include "fakeexport/fakeexport.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/sample_inputs.h"
#include "fakeexport/serde/zip.h"
#include "seed_mlp_model.h"

namespace {
using namespace fe;
using fe_test::lines_of;
using fe_test::read_file;

std::string pt2(const std::string& name) { return std::string(FE_FIXTURES_DIR) + "/pt2/" + name; }

class Pt2Load : public ::testing::TestWithParam<const char*> {};

TEST_P(Pt2Load, PrintsLikeTorchExportLoad) {
  serde::LoadedProgram lp = serde::load(pt2(std::string(GetParam()) + ".pt2"));
  auto ours = lines_of(to_string(lp.ep, {.read_source = false}));
  auto want = lines_of(read_file(pt2(std::string(GetParam()) + ".txt")));
  ASSERT_EQ(ours.size(), want.size()) << to_string(lp.ep);
  for (size_t n = 0; n < ours.size(); ++n) EXPECT_EQ(ours[n], want[n]) << GetParam() << " line " << n + 1;
  EXPECT_EQ(lp.schema_version, "8.20");
  EXPECT_EQ(lp.torch_version.rfind("2.14", 0), 0u) << lp.torch_version;
}
INSTANTIATE_TEST_SUITE_P(Fixtures, Pt2Load, ::testing::Values("seed_mlp", "gpt2_dynamic", "buffers", "tied",
                                                              "seed_mlp_fake"));

TEST(Pt2LoadWeights, RealArchivesHaveTheirWeights) {
  for (const char* c : {"seed_mlp", "gpt2_dynamic", "buffers", "tied"}) {
    serde::LoadedProgram lp = serde::load(pt2(std::string(c) + ".pt2"));
    EXPECT_TRUE(lp.weights_present) << c << ": " << lp.weights_note;
  }
}

TEST(Pt2LoadWeights, FakeSavedArchiveReportsWeightsAbsent) {
  // PyTorch 2.14 wrote every fake weight as one shared 0-byte payload and would load zeros silently.
  serde::LoadedProgram lp = serde::load(pt2("seed_mlp_fake.pt2"));
  EXPECT_FALSE(lp.weights_present);
  EXPECT_NE(lp.weights_note.find("saved from a fake program"), std::string::npos) << lp.weights_note;
  serde::LoadedProgram real = serde::load(pt2("seed_mlp_fake.pt2"), {.materialize_weights = true});
  EXPECT_THROW(run(real.ep, {randn({4, 128})}), DataAccessError);
}

TEST(Pt2LoadWeights, LoadedProgramRunsToPyTorchsNumbers) {
  serde::LoadedProgram lp = serde::load(pt2("seed_mlp.pt2"), {.materialize_weights = true});
  SafetensorsFile in(pt2("seed_mlp.inputs.safetensors")), out(pt2("seed_mlp.outputs.safetensors"));
  std::vector<Tensor> got = lp.ep.run({in.load("input_0")});
  ASSERT_EQ(got.size(), 1u);
  Tensor want = out.load("output_0");
  ASSERT_EQ(got[0].meta().annotation(), want.meta().annotation());
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got[0].data<float>()[i], want.data<float>()[i], 1e-5) << i;
}

TEST(Pt2LoadWeights, TiedWeightsShareOneTensor) {
  serde::LoadedProgram lp = serde::load(pt2("tied.pt2"), {.materialize_weights = true});
  const Tensor *emb = nullptr, *head = nullptr;
  for (const auto& [k, t] : lp.ep.state_dict) {
    if (k == "emb.weight") emb = &t;
    if (k == "head.weight") head = &t;
  }
  ASSERT_TRUE(emb && head);
  EXPECT_EQ(emb->impl(), head->impl());
}

/// A copy of `src` with entry `victim` replaced by `bytes` (everything else byte-identical).
std::string rewrite(const std::string& src, const std::string& victim, const std::string& bytes) {
  serde::ZipReader r(src);
  const std::string dst = (std::filesystem::temp_directory_path() / ("fe_pt2_" + std::to_string(::getpid()) + ".pt2")).string();
  serde::ZipWriter w(dst);
  for (const auto& e : r.entries()) {
    if (e.name.ends_with(victim)) w.add(e.name, std::string_view(bytes));
    else w.add(e.name, r.data(e));
  }
  w.finish();
  return dst;
}

TEST(Pt2LoadErrors, BadArchivesRaiseTypedErrorsNamingTheEntry) {
  EXPECT_THROW(serde::load(pt2("nope.pt2")), FileIOError);
  const std::string short_weight = rewrite(pt2("seed_mlp.pt2"), "data/weights/weight_1", std::string(12, '\0'));
  try {
    serde::load(short_weight);
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("'seed_mlp/data/weights/weight_1' has 12 bytes but 1024 are required"),
              std::string::npos)
        << e.what();
  }
  const std::string bad_json = rewrite(pt2("seed_mlp.pt2"), "models/model.json", "{\"graph_module\": 3}");
  EXPECT_THROW(serde::load(bad_json), FormatError);
  const std::string bad_cfg = rewrite(pt2("seed_mlp.pt2"), "model_weights_config.json", "[1, 2]");
  EXPECT_NE(fe_test::what_of([&] { serde::load(bad_cfg); }).find("model_weights_config.json"), std::string::npos);
  std::filesystem::remove(short_weight);
}

}  // namespace

namespace {

/// The seed MLP on cpu with real weights from PyTorch's fixture (so numbers can be compared).
struct RealMlp {
  seed::MLP m{128, 256, 10};
  ExportedProgram ep;
  RealMlp() {
    SafetensorsFile w(pt2("seed_mlp.weights.safetensors"));
    for (const auto& [name, slot] : m.named_parameters()) slot->copy_(w.load(name));
    ep = export_program(m, {randn({4, 128})});
  }
};

/// Archives written by the tests land in the build tree, where tools/oracle/scripts/check_our_pt2.py
/// (run in the reference environment) loads them with torch.export.load.
std::string out_path(const std::string& name) {
  std::filesystem::create_directories(std::string(FE_BUILD_DIR) + "/pt2_out");
  return std::string(FE_BUILD_DIR) + "/pt2_out/" + name;
}

TEST(Pt2Save, RoundTripsThroughOurReader) {
  RealMlp r;
  const std::string path = out_path("seed_mlp_ours.pt2");
  serde::save(r.ep, path);
  {  // our print, for check_our_pt2.py to compare with PyTorch's print of the archive
    std::ofstream txt(out_path("seed_mlp_ours.txt"));
    txt << to_string(r.ep, {.read_source = false});
  }
  serde::ZipReader zip(path);
  EXPECT_EQ(zip.root(), "seed_mlp_ours");
  for (const auto& e : zip.entries()) EXPECT_EQ(e.data_offset % 64, 0u) << e.name;
  serde::LoadedProgram lp = serde::load(path, {.materialize_weights = true});
  EXPECT_TRUE(lp.weights_present) << lp.weights_note;
  EXPECT_EQ(fe_test::blank_file_lines(to_string(lp.ep, {.read_source = false})),
            fe_test::blank_file_lines(to_string(r.ep, {.read_source = false})));
  SafetensorsFile in(pt2("seed_mlp.inputs.safetensors")), out(pt2("seed_mlp.outputs.safetensors"));
  Tensor got = run(lp.ep, {in.load("input_0")})[0], want = out.load("output_0");
  for (int64_t i = 0; i < want.numel(); ++i) EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5) << i;
}

// The example inputs are pickled as the root's in_spec nests them ((args, kwargs)), so PyTorch's
// ep.module() can bind them; a spec nested absurdly deep (a crafted program) takes the flat form
// instead of recursing without bound.
TEST(Pt2Save, SampleInputsFollowTheInSpecWithinDepth) {
  RealMlp r;
  ExportedProgram& ep = r.ep;
  const std::vector<int64_t> x_sizes = fe_test::ints(ep.graph.placeholders().back()->val[0].sizes);
  const auto leaf = std::string(R"({"type": null, "context": null, "children_spec": []})");
  const auto tuple = [](const std::string& kids) {
    return R"({"type": "builtins.tuple", "context": "null", "children_spec": [)" + kids + "]}";
  };
  const std::string kwargs = R"({"type": "builtins.dict", "context": "[\"x\"]", "children_spec": [)" + leaf + "]}";
  ModuleCallEntry root{.fqn = ""};
  root.signature = ModuleCallEntry::Signature{.in_spec = "[1, " + tuple(tuple("") + ", " + kwargs) + "]",
                                              .out_spec = "[1, " + leaf + "]"};
  ep.module_call_graph = {root};
  const std::string kw = out_path("seed_mlp_kwargs.pt2");
  serde::save(ep, kw);
  const auto by_kw = serde::read_sample_inputs(kw, serde::load(kw).ep);
  ASSERT_EQ(by_kw.size(), 1u);
  EXPECT_EQ(fe_test::ints(by_kw[0].second.sizes()), x_sizes);
  std::string deep;
  const int levels = 100000;
  for (int i = 0; i < levels; ++i) deep += R"({"type": "builtins.tuple", "context": "null", "children_spec": [)";
  deep += leaf;
  for (int i = 0; i < levels; ++i) deep += "]}";
  ep.module_call_graph[0].signature->in_spec = "[1, " + deep + "]";
  const std::string flat = out_path("seed_mlp_deep_spec.pt2");
  serde::save(ep, flat);  // written (flat example inputs), not a stack overflow
  // The archive loads; reading its example inputs by that spec fails typed, naming the field.
  const serde::LoadedProgram back = serde::load(flat);
  EXPECT_NE(fe_test::what_of([&] { serde::read_sample_inputs(flat, back.ep); }).find("in_spec node"), std::string::npos);
}

TEST(Pt2Save, WeightsPolicies) {
  ExportedProgram fake = seed::fake_export(kCPU, kCPU);
  // A fake program has no data: saving "its own tensors" names the first one.
  EXPECT_NE(fe_test::what_of([&] { serde::save(fake, out_path("fake_tensors.pt2")); }).find("is fake"),
            std::string::npos);
  serde::save(fake, out_path("seed_mlp_none.pt2"), {.weights = serde::WeightsPolicy::None});
  serde::LoadedProgram none = serde::load(out_path("seed_mlp_none.pt2"));
  EXPECT_FALSE(none.weights_present);
  EXPECT_NE(none.weights_note.find("graph-only"), std::string::npos);
  serde::save(fake, out_path("seed_mlp_zeros.pt2"), {.weights = serde::WeightsPolicy::Zeros});
  serde::LoadedProgram zeros = serde::load(out_path("seed_mlp_zeros.pt2"), {.materialize_weights = true});
  ASSERT_TRUE(zeros.weights_present);
  EXPECT_EQ(zeros.ep.state_dict[0].second.data<float>()[123], 0.0f);
  serde::save(fake, out_path("seed_mlp_random.pt2"), {.weights = serde::WeightsPolicy::Random, .seed = 7});
  serde::save(fake, out_path("seed_mlp_random2.pt2"), {.weights = serde::WeightsPolicy::Random, .seed = 7});
  serde::LoadedProgram a = serde::load(out_path("seed_mlp_random.pt2"), {.materialize_weights = true});
  serde::LoadedProgram b = serde::load(out_path("seed_mlp_random2.pt2"), {.materialize_weights = true});
  const float x = a.ep.state_dict[0].second.data<float>()[5];
  EXPECT_EQ(x, b.ep.state_dict[0].second.data<float>()[5]);  // deterministic from the seed
  EXPECT_NE(x, 0.0f);
  EXPECT_LT(std::fabs(x), 1.0f);
}

TEST(Pt2Save, TiedWeightsStoredOnce) {
  serde::LoadedProgram tied = serde::load(pt2("tied.pt2"), {.materialize_weights = true});
  serde::save(tied.ep, out_path("tied_ours.pt2"));
  serde::ZipReader zip(out_path("tied_ours.pt2"));
  int payloads = 0;
  for (const auto& e : zip.entries()) payloads += e.name.find("data/weights/weight_") != std::string::npos;
  EXPECT_EQ(payloads, 1);
  serde::LoadedProgram back = serde::load(out_path("tied_ours.pt2"), {.materialize_weights = true});
  EXPECT_TRUE(back.weights_present);
}

}  // namespace

namespace {

// PyTorch's own archives, read and written again by us: the same program must come back (our reader
// here; check_our_pt2.py has PyTorch load them, print them as the fixtures and run them).
// ExportedProgram._guards_code (the trace's input guards, which ep.module()'s `_guards_fn` asserts
// and a retrace records) is read and written back.
TEST(Pt2Save, KeepsGuardsCode) {
  const std::string corpus = std::string(FE_FIXTURES_DIR) + "/corpus/ops_elementwise_dynamic.pt2";
  serde::LoadedProgram lp = serde::load(corpus, {.materialize_weights = true});
  ASSERT_EQ(lp.ep.guards_code, std::vector<std::string>{"L['y'].size()[0] == L['x'].size()[0]"});
  const std::string path = out_path("guards_resaved.pt2");
  serde::save(lp.ep, path, {.torch_version = lp.torch_version});
  EXPECT_EQ(serde::load(path).ep.guards_code, lp.ep.guards_code);
}

TEST(Pt2Save, RewritesPyTorchArchives) {
  for (const char* c : {"seed_mlp", "gpt2_dynamic", "buffers", "tied"}) {
    serde::LoadedProgram lp = serde::load(pt2(std::string(c) + ".pt2"), {.materialize_weights = true});
    const std::string path = out_path(std::string(c) + "_resaved.pt2");
    serde::save(lp.ep, path, {.torch_version = lp.torch_version});
    serde::LoadedProgram back = serde::load(path);
    EXPECT_TRUE(back.weights_present) << c << ": " << back.weights_note;
    EXPECT_EQ(to_string(back.ep, {.read_source = false}), read_file(pt2(std::string(c) + ".txt"))) << c;
  }
}

}  // namespace

namespace {

TEST(Pt2Save, WeightsFromASafetensorsFile) {
  ExportedProgram fake = seed::fake_export(kCPU, kCPU);
  const std::string path = out_path("seed_mlp_file.pt2");
  serde::save(fake, path, {.weights = serde::WeightsPolicy::File, .weights_file = pt2("seed_mlp.weights.safetensors")});
  serde::LoadedProgram lp = serde::load(path, {.materialize_weights = true});
  ASSERT_TRUE(lp.weights_present) << lp.weights_note;
  SafetensorsFile in(pt2("seed_mlp.inputs.safetensors")), out(pt2("seed_mlp.outputs.safetensors"));
  Tensor got = run(lp.ep, {in.load("input_0")})[0], want = out.load("output_0");
  for (int64_t i = 0; i < want.numel(); ++i) EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5) << i;

  // A file for another model: every problem listed at once, and no archive left behind.
  const std::string bad = out_path("seed_mlp_badfile.pt2");
  const std::string what = fe_test::what_of([&] {
    serde::save(fake, bad, {.weights = serde::WeightsPolicy::File, .weights_file = pt2("tied.weights.safetensors")});
  });
  EXPECT_NE(what.find("missing 'fc1.weight' (f32[256, 128])"), std::string::npos) << what;
  EXPECT_NE(what.find("missing 'fc2.bias' (f32[10])"), std::string::npos) << what;
  EXPECT_NE(what.find("extra 'emb.weight'"), std::string::npos) << what;
  EXPECT_FALSE(std::filesystem::exists(bad));
}

}  // namespace

namespace {

TEST(Pt2LoadWeights, WeightsAreMappedNotCopiedAndWritesStayPrivate) {
  const std::string path = pt2("buffers.pt2");
  const std::string before = read_file(path);
  const int64_t allocated = tensor_data_bytes_allocated();
  serde::LoadedProgram lp = serde::load(path, {.materialize_weights = true});
  EXPECT_EQ(tensor_data_bytes_allocated(), allocated);  // nothing copied out of the archive
  const Tensor* steps = nullptr;
  for (const auto& [k, t] : lp.ep.state_dict)
    if (k == "steps") steps = &t;
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->data<int64_t>()[0], 0);
  run(lp.ep, {randn({2, 4})});  // self.steps.add_(1)
  EXPECT_EQ(steps->data<int64_t>()[0], 1);
  EXPECT_EQ(read_file(path), before);  // copy-on-write: the archive is untouched
}

}  // namespace

namespace {

// torch 2.8 stored weights as one torch.save pickle (data/weights/model.pt): read by the restricted
// reader, never executed. The archive is the 2.14 one with its raw payloads swapped for that file.
TEST(Pt2LoadWeights, Torch28PickledWeightsLayout) {
  serde::ZipReader src(pt2("seed_mlp.pt2"));
  const std::string path = out_path("seed_mlp_28.pt2");
  {
    serde::ZipWriter w(path);
    const std::string pickled = read_file(pt2("seed_mlp.state_dict.pt"));
    for (const auto& e : src.entries()) {
      if (e.name.find("data/weights/") != std::string::npos) continue;
      w.add(e.name, src.data(e));
    }
    w.add("seed_mlp/data/weights/model.pt", std::string_view(pickled));
    w.finish();
  }
  // The copied entries keep the archive's root folder.
  serde::ZipReader check(path);
  ASSERT_EQ(check.root(), "seed_mlp");
  serde::LoadedProgram lp = serde::load(path, {.materialize_weights = true});
  EXPECT_TRUE(lp.weights_present) << lp.weights_note;
  SafetensorsFile in(pt2("seed_mlp.inputs.safetensors")), out(pt2("seed_mlp.outputs.safetensors"));
  Tensor got = lp.ep.run({in.load("input_0")})[0], want = out.load("output_0");
  for (int64_t i = 0; i < want.numel(); ++i) EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5) << i;
}

}  // namespace

namespace {

// torch <= 2.7 wrote a flat zip: serialized_exported_program.json + serialized_state_dict.pt. No such
// archive can be made with 2.14, so this one is assembled from the 2.14 model.json and a torch.save
// state dict (the layout is pt2-format.md §1.1's).
TEST(Pt2LoadWeights, FlatLegacyLayout) {
  serde::ZipReader src(pt2("seed_mlp.pt2"));
  const std::string path = out_path("seed_mlp_legacy.pt2");
  {
    serde::ZipWriter w(path, {.alignment = 1});
    w.add("serialized_exported_program.json", src.data("seed_mlp/models/model.json"));
    w.add("serialized_state_dict.pt", std::string_view(read_file(pt2("seed_mlp.state_dict.pt"))));
    w.add("version", std::string_view("8.20"));
    w.finish();
  }
  serde::LoadedProgram lp = serde::load(path, {.materialize_weights = true});
  EXPECT_EQ(to_string(lp.ep, {.read_source = false}), read_file(pt2("seed_mlp.txt")));
  SafetensorsFile in(pt2("seed_mlp.inputs.safetensors")), out(pt2("seed_mlp.outputs.safetensors"));
  Tensor got = lp.ep.run({in.load("input_0")})[0], want = out.load("output_0");
  for (int64_t i = 0; i < want.numel(); ++i) EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5) << i;
}

}  // namespace

namespace {
// gen_pt2.py's Tied: head.weight = emb.weight. torch.export lists a placeholder per name and the
// graph reads the last one (p_head_weight), for a real model as for a fake one.
class TiedModel : public fe::nn::UnaryModule {
 public:
  TiedModel()
      : emb(register_module("emb", std::make_shared<fe::nn::Embedding>(10, 6))),
        head(register_module("head", std::make_shared<fe::nn::Linear>(6, 10, false))) {
    head->weight = emb->weight;
  }
  std::string type_name() const override { return "__main__.Tied"; }
  std::vector<std::string> forward_arg_names() const override { return {"i"}; }
  fe::Tensor forward(const fe::Tensor& i) override { return (*head)((*emb)(i)); }
  std::shared_ptr<fe::nn::Embedding> emb;
  std::shared_ptr<fe::nn::Linear> head;
};
}  // namespace

TEST(Pt2Export, TiedWeightsPrintLikePyTorch) {
  const std::string want = fe_test::blank_file_lines(fe_test::read_file(pt2("tied.txt")));
  for (bool fake : {false, true}) {
    std::optional<fe::FakeTensorMode> mode;
    if (fake) mode.emplace();
    TiedModel m;
    fe::ExportedProgram ep = fe::export_program(m, {fe::zeros({2, 3}, {.dtype = fe::DType::Int64})});
    EXPECT_EQ(fe_test::blank_file_lines(fe::to_string(ep)), want) << (fake ? "fake" : "real");
  }
}
