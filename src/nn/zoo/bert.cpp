// model_type "bert": transformers' BertModel (with pooler), encoder only, post-LN layers,
// bidirectional attention without a mask (all ones), token_type_ids from the zero buffer.
// Forward(input_ids) -> (last_hidden_state, pooler_output), as return_dict=False.
#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/bert_common.h"
#include "nn/zoo/families.h"
#include "nn/zoo/masking.h"

namespace fe::zoo {
namespace {

constexpr const char* kPrefix = "transformers.models.bert.modeling_bert.";

struct Dims {
  int64_t vocab, hidden, layers, heads, inter, max_pos, type_vocab;
  double eps;
  std::optional<int64_t> pad;
  double dropout;  // hidden_dropout_prob: nn.Dropout modules as HF's (identity in eval)
};

class BertEmbeddings : public nn::Module {
 public:
  explicit BertEmbeddings(const Dims& d)
      : word_embeddings(register_module("word_embeddings", std::make_shared<hf::PaddedEmbedding>(d.vocab, d.hidden, d.pad))),
        position_embeddings(register_module("position_embeddings", std::make_shared<nn::Embedding>(d.max_pos, d.hidden))),
        token_type_embeddings(register_module("token_type_embeddings", std::make_shared<nn::Embedding>(d.type_vocab, d.hidden))),
        LayerNorm(register_module("LayerNorm", std::make_shared<nn::LayerNorm>(d.hidden, d.eps))),
        dropout(register_module("dropout", std::make_shared<nn::Dropout>(d.dropout))),
        // Both int64 [1, max_position_embeddings], non-persistent, as HF registers them.
        position_ids(register_buffer("position_ids", known_buffer([&] { return arange(d.max_pos).unsqueeze(0); }), false)),
        token_type_ids(register_buffer(
            "token_type_ids", known_buffer([&] { return zeros({1, d.max_pos}, {.dtype = DType::Int64}); }), false)) {}
  std::string type_name() const override { return std::string(kPrefix) + "BertEmbeddings"; }

  Tensor operator()(const Tensor& input_ids) {
    nn::ModuleCallScope scope(*this);
    const SymInt B = input_ids.size(0), T = input_ids.size(1);
    // self.position_ids[:, past_key_values_length : seq_length + past_key_values_length]
    Tensor pos = hf::slice_to(position_ids, 1, 0, T + 0);
    // HF's buffered default: zeros gathered at the positions, broadcast over the batch.
    Tensor tt = token_type_ids.expand({pos.size(0), SymInt(-1)}).gather(1, pos).expand({B, T});
    // One statement per call: C++ leaves the order of `a(x) + b(y)`'s operands unspecified.
    Tensor x = (*word_embeddings)(input_ids);
    x = x + (*token_type_embeddings)(tt);
    x = x + (*position_embeddings)(pos);
    return (*dropout)((*LayerNorm)(x));
  }

  std::shared_ptr<hf::PaddedEmbedding> word_embeddings;
  std::shared_ptr<nn::Embedding> position_embeddings, token_type_embeddings;
  std::shared_ptr<nn::LayerNorm> LayerNorm;
  std::shared_ptr<nn::Dropout> dropout;
  Tensor &position_ids, &token_type_ids;
};

class BertSelfAttention : public nn::Module {
 public:
  explicit BertSelfAttention(const Dims& d)
      : head_dim(d.hidden / d.heads),
        query(register_module("query", std::make_shared<nn::Linear>(d.hidden, d.hidden))),
        key(register_module("key", std::make_shared<nn::Linear>(d.hidden, d.hidden))),
        value(register_module("value", std::make_shared<nn::Linear>(d.hidden, d.hidden))) {}
  std::string type_name() const override { return std::string(kPrefix) + "BertSelfAttention"; }

  Tensor operator()(const Tensor& h, const Tensor& mask) {
    nn::ModuleCallScope scope(*this);
    const SymInt B = h.size(0), T = h.size(1);
    Tensor q = (*query)(h).view({B, T, -1, head_dim}).transpose(1, 2);
    Tensor k = (*key)(h).view({B, T, -1, head_dim}).transpose(1, 2);
    Tensor v = (*value)(h).view({B, T, -1, head_dim}).transpose(1, 2);
    // sdpa_attention_forward: the bidirectional mask, not causal, scale = head_dim ** -0.5.
    masks::is_causal_probe(q);
    Tensor o = scaled_dot_product_attention(q, k, v, mask, 0.0, false, std::pow(double(head_dim), -0.5));
    o = o.transpose(1, 2).contiguous();
    return o.reshape({B, T, -1}).contiguous();
  }

  const int64_t head_dim;
  std::shared_ptr<nn::Linear> query, key, value;
};

/// BertSelfOutput / BertOutput: dense, then LayerNorm(h + residual).
class BertDenseNorm : public nn::Module {
 public:
  BertDenseNorm(int64_t in, const Dims& d, const char* cls)
      : dense(register_module("dense", std::make_shared<nn::Linear>(in, d.hidden))),
        LayerNorm(register_module("LayerNorm", std::make_shared<nn::LayerNorm>(d.hidden, d.eps))),
        dropout(register_module("dropout", std::make_shared<nn::Dropout>(d.dropout))),
        cls_(cls) {}
  std::string type_name() const override { return std::string(kPrefix) + cls_; }
  Tensor operator()(const Tensor& h, const Tensor& residual) {
    nn::ModuleCallScope scope(*this);
    return (*LayerNorm)((*dropout)((*dense)(h)) + residual);
  }
  std::shared_ptr<nn::Linear> dense;
  std::shared_ptr<nn::LayerNorm> LayerNorm;
  std::shared_ptr<nn::Dropout> dropout;

 private:
  const char* cls_;
};

class BertAttention : public nn::Module {
 public:
  explicit BertAttention(const Dims& d)
      : self(register_module("self", std::make_shared<BertSelfAttention>(d))),
        output(register_module("output", std::make_shared<BertDenseNorm>(d.hidden, d, "BertSelfOutput"))) {}
  std::string type_name() const override { return std::string(kPrefix) + "BertAttention"; }
  Tensor operator()(const Tensor& h, const Tensor& mask) {
    nn::ModuleCallScope scope(*this);
    return (*output)((*self)(h, mask), h);
  }
  std::shared_ptr<BertSelfAttention> self;
  std::shared_ptr<BertDenseNorm> output;
};

class BertIntermediate : public nn::Module {
 public:
  BertIntermediate(const Dims& d, std::shared_ptr<HFActivation> act)
      : dense(register_module("dense", std::make_shared<nn::Linear>(d.hidden, d.inter))),
        intermediate_act_fn(register_module("intermediate_act_fn", std::move(act))) {}
  std::string type_name() const override { return std::string(kPrefix) + "BertIntermediate"; }
  Tensor operator()(const Tensor& h) {
    nn::ModuleCallScope scope(*this);
    return (*intermediate_act_fn)((*dense)(h));
  }
  std::shared_ptr<nn::Linear> dense;
  std::shared_ptr<HFActivation> intermediate_act_fn;
};

class BertLayer : public nn::Module {
 public:
  BertLayer(const Dims& d, std::shared_ptr<HFActivation> act)
      : attention(register_module("attention", std::make_shared<BertAttention>(d))),
        intermediate(register_module("intermediate", std::make_shared<BertIntermediate>(d, std::move(act)))),
        output(register_module("output", std::make_shared<BertDenseNorm>(d.inter, d, "BertOutput"))) {}
  std::string type_name() const override { return std::string(kPrefix) + "BertLayer"; }
  Tensor operator()(const Tensor& h, const Tensor& mask) {
    nn::ModuleCallScope scope(*this);
    Tensor a = (*attention)(h, mask);
    return (*output)((*intermediate)(a), a);
  }
  std::shared_ptr<BertAttention> attention;
  std::shared_ptr<BertIntermediate> intermediate;
  std::shared_ptr<BertDenseNorm> output;
};

class BertEncoder : public nn::Module {
 public:
  BertEncoder(const Config& c, const Dims& d) : layer(register_module("layer", std::make_shared<nn::ModuleList>())) {
    for (int64_t i = 0; i < d.layers; ++i)
      layer->push_back(std::make_shared<BertLayer>(d, activation_from_config(c, "hidden_act", "gelu")));
  }
  std::string type_name() const override { return std::string(kPrefix) + "BertEncoder"; }
  /// The layers in turn, each fed on its own device (pipeline placement).
  Tensor operator()(Tensor h, Tensor mask) {
    nn::ModuleCallScope scope(*this);
    for (size_t i = 0; i < layer->size(); ++i) {
      // The layer's inputs in its argument order (hidden_states, attention_mask).
      auto& l = layer->at<BertLayer>(i);
      h = to_module_device(h, l);
      mask = to_module_device(mask, l);
      h = l(h, mask);
    }
    return h;
  }
  std::shared_ptr<nn::ModuleList> layer;
};

class BertPooler : public nn::Module {
 public:
  explicit BertPooler(const Dims& d)
      : dense(register_module("dense", std::make_shared<nn::Linear>(d.hidden, d.hidden))),
        activation(register_module("activation", std::make_shared<hf::Tanh>())) {}
  std::string type_name() const override { return std::string(kPrefix) + "BertPooler"; }
  Tensor operator()(const Tensor& h) {
    nn::ModuleCallScope scope(*this);
    return (*activation)((*dense)(masks::getitem(h, ":0")));  // hidden_states[:, 0]
  }
  std::shared_ptr<nn::Linear> dense;
  std::shared_ptr<hf::Tanh> activation;
};

Dims read_dims(const Config& c) {
  Dims d{c.get_int("vocab_size"), c.get_int("hidden_size"), c.get_int("num_hidden_layers"),
         c.get_int("num_attention_heads"), c.get_int("intermediate_size"), c.get_int("max_position_embeddings"),
         c.get_int("type_vocab_size", 2), c.get_double("layer_norm_eps", 1e-12), hf::pad_token_id(c, 0),
         c.get_double("hidden_dropout_prob", 0.1)};
  hf::check_divisible(c, "hidden_size", d.hidden, "num_attention_heads", d.heads);
  activation_from_config(c, "hidden_act", "gelu");  // rejects an unsupported one even with 0 layers
  // Decoder use (causal self-attention, cross-attention) and relative positions are not built.
  FE_CHECK(!c.get_bool("is_decoder", false), ValueError, c.origin(), ": field 'is_decoder' = true is not supported (BertModel as an encoder only)");
  FE_CHECK(!c.get_bool("add_cross_attention", false), ValueError, c.origin(), ": field 'add_cross_attention' = true is not supported");
  const std::string pet = c.get_string("position_embedding_type", "absolute");
  FE_CHECK(pet == "absolute", ValueError, c.origin(), ": field 'position_embedding_type' = '", pet,
           "' is not supported (transformers 5 BERT has absolute positions only)");
  return d;
}

class BertModel : public Model {
 public:
  BertModel(const Config& c, const Dims& d)
      : dims(d),
        embeddings(register_module("embeddings", std::make_shared<BertEmbeddings>(d))),
        encoder(register_module("encoder", std::make_shared<BertEncoder>(c, d))),
        pooler(register_module("pooler", std::make_shared<BertPooler>(d))) {}
  std::string type_name() const override { return std::string(kPrefix) + "BertModel"; }
  std::string model_type() const override { return "bert"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids"}; }

  std::vector<Unit> units() const override {
    std::vector<Unit> u{{"embeddings", false}};
    for (int64_t i = 0; i < dims.layers; ++i) u.push_back({"encoder.layer." + std::to_string(i), true});
    u.push_back({"pooler", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 1, ValueError, "BertModel.forward() takes 1 tensor argument (input_ids) but ", args.size(),
             " were given");
    nn::ModuleCallScope scope(*this);
    Tensor h = (*embeddings)(to_module_device(args[0], *embeddings));
    // create_bidirectional_mask(config, embedding_output, attention_mask=None)
    Tensor mask = masks::create_bidirectional_mask(h, Tensor());
    h = (*encoder)(h, mask);
    // The encoder's output is last_hidden_state; the pooler reads it on its own device.
    return {h, (*pooler)(to_module_device(h, *pooler))};
  }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    in.args.push_back(token_ids(batch_or(o, 2), seq_or(o, 8), dims.vocab, module_device(*embeddings)));
    in.dynamic_shapes["input_ids"] = batch_seq_dims(o, dims.max_pos);
    return in;
  }

  const Dims dims;
  std::shared_ptr<BertEmbeddings> embeddings;
  std::shared_ptr<BertEncoder> encoder;
  std::shared_ptr<BertPooler> pooler;
};

}  // namespace

std::unique_ptr<Model> build_bert(const Config& c) { return std::make_unique<BertModel>(c, read_dims(c)); }

// A 2-layer BERT: hidden 64, 4 heads, vocab 1000, 128 positions.
std::string_view default_config_bert() {
  return R"({"model_type": "bert", "vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 2,
  "num_attention_heads": 4, "intermediate_size": 256, "max_position_embeddings": 128, "type_vocab_size": 2,
  "hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0})";
}

}  // namespace fe::zoo
